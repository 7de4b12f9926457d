import { z } from 'zod';
import { ValidationError, type FieldIssue } from './errors.js';
import { hasControlCharacter, hasControlCharacterBesidesLineBreaks, unstorable } from './text.js';

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
    // A refinement of ours may name its code (singleLine, freeText: invalid_character).
    const named = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
    issues.push({ field, message: issue.message, code: typeof named === 'string' ? named : issue.code });
  }
  return issues;
}

const MAX_TEXT_ISSUES = 10;
/** Deeper than any request schema nests: zod refuses what lies below, so it is not looked at. */
const MAX_TEXT_DEPTH = 16;

type Node = { value: unknown; depth: number; key?: PropertyKey; up?: Node };

/**
 * Text PostgreSQL cannot keep as sent: it refuses U+0000 in text and jsonb, and a lone UTF-16
 * surrogate in jsonb (a text column would hold U+FFFD instead). The handler met either only at its
 * insert or query, as a 500. Checked here, on every path, query and body value and key, so no schema
 * can forget it. A loop with links to the parent, not a path copied per value: a 1 MiB body is walked
 * in linear time, and a path is built only for the few values reported.
 */
function unstorableText(input: unknown, prefix: string | undefined): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const issue = (node: Node) => {
    const path: PropertyKey[] = [];
    for (let n: Node | undefined = node; n?.up; n = n.up) path.push(n.key!);
    const field = [prefix, pathToField(path.reverse())].filter(Boolean).join('.') || (prefix ?? 'body');
    issues.push({
      field,
      message: 'Must not contain U+0000 or unpaired UTF-16 surrogates.',
      code: 'invalid_character',
    });
  };
  const stack: Node[] = [{ value: input, depth: 0 }];
  while (stack.length > 0 && issues.length < MAX_TEXT_ISSUES) {
    const node = stack.pop()!;
    const { value, depth } = node;
    if (typeof value === 'string') {
      if (unstorable(value)) issue(node);
    } else if (depth >= MAX_TEXT_DEPTH) {
      continue;
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ value: v, depth: depth + 1, key: i, up: node }));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const child = { value: v, depth: depth + 1, key: k, up: node };
        if (unstorable(k)) issue(child);
        stack.push(child);
      }
    }
  }
  return issues;
}

export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: 'body' | 'query' | 'path',
): z.infer<S> {
  const prefix = where === 'body' ? undefined : where;
  const badText = unstorableText(input, prefix);
  const result = schema.safeParse(input);
  if (result.success && badText.length === 0) return result.data;
  // A NUL is a control character too: its field is named once, by the storage check.
  const named = new Set(badText.map((f) => f.field));
  const schemaIssues = result.success ? [] : toFieldIssues(result.error, prefix);
  const fields = [...badText, ...schemaIssues.filter((f) => !(f.code === 'invalid_character' && named.has(f.field)))];
  const summary = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
  throw new ValidationError(`Invalid ${where === 'path' ? 'path parameter' : where}: ${summary}`, fields);
}

/**
 * A name, title or label: one line of text, so no control character, tab and line breaks included
 * (issue 36). Such text is printed by the operator CLI one row per record, where a line break forged
 * a row and an escape sequence retitled the operator's terminal. Refused as `422 VALIDATION_FAILED`,
 * `code: invalid_character`, like the text PostgreSQL cannot store.
 */
export function singleLine<T extends z.ZodString>(schema: T): T {
  return schema.refine((v) => !hasControlCharacter(v), {
    message: 'Must not contain control characters (line breaks, tabs, escape sequences).',
    params: { code: 'invalid_character' },
  });
}

/** Free text (notes, descriptions): lines and tabs allowed, every other control character refused. */
export function freeText<T extends z.ZodString>(schema: T): T {
  return schema.refine((v) => !hasControlCharacterBesidesLineBreaks(v), {
    message: 'Must not contain control characters other than line breaks and tabs.',
    params: { code: 'invalid_character' },
  });
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
