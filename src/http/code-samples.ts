import { z } from 'zod';
import type { RouteDefinition } from './route.js';

type Json = { [key: string]: any };

/**
 * The TypeScript client's call for an operation, shown next to curl in the API reference (Scalar
 * reads `x-codeSamples`). Built from the route: its path, method, required path parameters and a
 * body of the required fields, valued from the schemas' examples.
 */
export function typescriptSample(route: RouteDefinition): string {
  const path = `/api/v1${route.path}`;
  const params = route.params ? requiredExample(route.params) : undefined;
  const body = route.body ? requiredExample(route.body) : undefined;
  // The console's routes are called from its page with the member's session, not with a key.
  const header =
    route.auth === 'session' || route.consolePublic
      ? [
          `import { createClient } from '@shelf/client';`,
          '',
          `// In a page of the service's own origin: the browser sends the session cookie.`,
          `let csrfToken: string | undefined; // from the sign-in answer`,
          `const shelf = createClient({`,
          `  baseUrl: 'http://localhost:3000',`,
          `  session: { csrfToken: () => csrfToken },`,
          `});`,
        ]
      : [
          `import { createClient } from '@shelf/client';`,
          '',
          `const shelf = createClient({`,
          `  baseUrl: 'http://localhost:3000',`,
          `  apiKey: process.env.SHELF_API_KEY!,`,
          `});`,
        ];
  if (route.responseContentType) {
    // Not JSON: the answer's bytes, through openapi-fetch underneath (the typed calls parse JSON).
    const init = params ? `{ params: { path: ${literal(params)} }, parseAs: 'blob' }` : `{ parseAs: 'blob' }`;
    return [...header, `const { data: file } = await shelf.raw.GET('${path}', ${init});`].join('\n');
  }
  if (route.method === 'get' && isList(route.response) && !params) {
    return [
      ...header,
      '',
      `// Every item, page after page (following pagination.cursor).`,
      `for await (const item of shelf.paginate('${path}')) {`,
      `  console.log(item);`,
      `}`,
    ].join('\n');
  }
  const init: Record<string, unknown> = {};
  if (params) init.params = { path: params };
  if (body) init.body = body;
  const call = `const { data } = await shelf.${route.method}('${path}'`;
  const args = Object.keys(init).length ? `, ${literal(init, '', call.length + 4)}` : '';
  const lines = [...header, `${call}${args});`];
  if (route.method === 'post' && route.path === '/analyses')
    lines.push(`// completed or failed, with its products`, `const analysis = await shelf.waitForAnalysis(data.id);`);
  return lines.join('\n');
}

function isList(schema: z.ZodType): boolean {
  const json = toJson(schema);
  return Boolean(json.properties?.pagination);
}

/** An example value of the schema's required fields (the optional ones are left to the reader). */
function requiredExample(schema: z.ZodType): unknown {
  const json = toJson(schema);
  const value = (s: Json): unknown => {
    if (s.$ref) return value(json.$defs?.[String(s.$ref).split('/').pop()!] ?? {});
    if (s.example !== undefined) return s.example;
    if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
    if (s.default !== undefined) return s.default;
    if (s.enum) return s.enum[0];
    if (s.const !== undefined) return s.const;
    const choice = s.anyOf ?? s.oneOf;
    if (choice) return value(choice.find((c: Json) => c.type !== 'null') ?? choice[0]);
    if (s.type === 'object' || s.properties) {
      // Required fields; an update (nothing required) shows its first field.
      // Fields with a default count as required: the generated types (from the document) ask for them.
      const props = Object.entries<Json>(s.properties ?? {});
      const keys = props.filter(([k, p]) => s.required?.includes(k) || p.default !== undefined).map(([k]) => k);
      if (keys.length === 0 && props.length) keys.push(props[0]![0]);
      return Object.fromEntries(keys.map((key) => [key, value(s.properties?.[key] ?? {})]));
    }
    if (s.type === 'array') return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => value(s.items ?? {}));
    if (s.type === 'integer' || s.type === 'number') return s.minimum ?? 1;
    if (s.type === 'boolean') return true;
    if (s.format === 'uri') return 'https://example.com/shelf.jpg';
    if (s.format === 'email') return 'ana@example.com';
    if (s.format === 'date') return '2026-01-31';
    return 'string';
  };
  return value(json);
}

function toJson(schema: z.ZodType): Json {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
}

/** The reference page's code panel shows about this many characters without scrolling. */
const WIDTH = 64;

/** A JS literal: on one line when short, otherwise one property per line with trailing commas. */
function literal(value: unknown, indent = '', used = indent.length): string {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(value);
  }
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((v) => literal(v, inner))
    : Object.entries(value).map(([k, v]) => {
        const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`;
        return `${key}: ${literal(v, inner, inner.length + key.length + 2)}`;
      });
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{ ', ' }'];
  if (entries.length === 0) return Array.isArray(value) ? '[]' : '{}';
  const line = `${open}${entries.join(', ')}${close}`;
  if (used + line.length <= WIDTH && !line.includes('\n')) return line;
  return `${open.trim()}\n${entries.map((e) => `${inner}${e},`).join('\n')}\n${indent}${close.trim()}`;
}
