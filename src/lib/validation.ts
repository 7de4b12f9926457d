import { z } from 'zod';
import { ValidationError, type FieldIssue } from './errors.js';

function pathToField(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    return acc ? `${acc}.${String(key)}` : String(key);
  }, '');
}

/** Flattens zod issues to one entry per field, so clients can point at the exact input. */
export function toFieldIssues(error: z.ZodError, prefix?: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    const base = pathToField(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = [prefix, base, key].filter(Boolean).join('.');
        issues.push({ field, message: 'Unknown field.', code: 'unknown_field' });
      }
      continue;
    }
    const field = [prefix, base].filter(Boolean).join('.') || (prefix ?? 'body');
    issues.push({ field, message: issue.message, code: issue.code });
  }
  return issues;
}

export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: 'body' | 'query' | 'path',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = toFieldIssues(result.error, where === 'body' ? undefined : where);
  const summary = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
  throw new ValidationError(`Invalid ${where === 'path' ? 'path parameter' : where}: ${summary}`, fields);
}

/** Fields common to many request schemas. */
export const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'Must be an absolute http(s) URL.');

export const httpsUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      return new URL(v).protocol === 'https:';
    } catch {
      return false;
    }
  }, 'Must be an absolute https URL.');

export const isoDate = z.iso.date();
export const countryCode = z
  .string()
  // The pattern decides (and stops); the length is there for the OpenAPI document.
  .regex(/^[A-Za-z]{2}$/, { message: 'Must be an ISO 3166-1 alpha-2 country code.', abort: true })
  .max(2)
  .transform((v) => v.toUpperCase());
export const currencyCode = z
  .string()
  .regex(/^[A-Za-z]{3}$/, { message: 'Must be an ISO 4217 currency code.', abort: true })
  .max(3)
  .transform((v) => v.toUpperCase());
