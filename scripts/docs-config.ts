/**
 * `npm run docs:config`: writes the README's configuration table from the config schemas, and
 * docs/tools.md's from the tools' settings schema, so a variable is documented in one place, its
 * `.describe()`. `--check` changes nothing and exits 1 when a table is not what its schemas give
 * (test/docs/readme.test.ts runs the same check).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { globalRegistry, type z } from 'zod';
import { CONFIG_SCHEMA } from '../src/config.js';
import { OPENAI_SETTINGS_SCHEMA } from '../src/modules/recognition/engines/openai-recognizer.js';
import { TOOL_SETTINGS_SCHEMA } from './lib/tool-settings.js';

export const TABLE_START = '<!-- config-table:start (npm run docs:config writes this table from src/config.ts) -->';
export const TABLE_END = '<!-- config-table:end -->';

/** Every schema whose variables the table lists, in the table's order. */
export const CONFIG_SCHEMAS: readonly z.ZodObject[] = [CONFIG_SCHEMA, OPENAI_SETTINGS_SCHEMA];

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; defaultValue?: unknown };

/** The default column: the schema's default, `unset` for an optional variable, `required` otherwise. */
function defaultText(field: z.ZodType): string {
  const given = globalRegistry.get(field)?.defaultText;
  if (typeof given === 'string') return given;
  return declaredDefault(field) ?? 'required';
}

/** Through wrappers to a default or an optional: a pipe's input side (`.transform()`), else its output (`z.preprocess`). */
function declaredDefault(s: z.ZodType | undefined): string | undefined {
  if (!s) return undefined;
  const def = s.def as Def;
  if (def.type === 'default') {
    const v = def.defaultValue;
    return v === '' ? 'empty' : `\`${String(v)}\``;
  }
  if (def.type === 'optional') return 'unset';
  if (def.type === 'pipe') return declaredDefault(def.in) ?? declaredDefault(def.out);
  return declaredDefault(def.innerType);
}

const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

/** The Markdown table of every variable of the given schemas; a variable without a description throws. */
export function configTable(schemas: readonly z.ZodObject[] = CONFIG_SCHEMAS): string {
  const rows = ['| variable | default | meaning |', '|---|---|---|'];
  for (const schema of schemas) {
    for (const [name, field] of Object.entries(schema.shape) as [string, z.ZodType][]) {
      const description = field.description;
      if (!description) throw new Error(`${name} has no .describe() in its config schema`);
      rows.push(`| \`${name}\` | ${cell(defaultText(field))} | ${cell(description)} |`);
    }
  }
  return rows.join('\n');
}

/** The document with the text between the markers replaced by the table. */
export function withTable(doc: string, table: string, start = TABLE_START, end = TABLE_END): string {
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`the document lacks the markers ${start} … ${end}`);
  return `${doc.slice(0, from + start.length)}\n\n${table}\n\n${doc.slice(to)}`;
}

export const README_PATH = resolve(import.meta.dirname, '../README.md');

/** Each generated table: its document, its markers and the schemas it lists. */
export const TABLES = [
  { path: README_PATH, start: TABLE_START, end: TABLE_END, schemas: CONFIG_SCHEMAS },
  {
    path: resolve(import.meta.dirname, '../docs/tools.md'),
    start: '<!-- tool-settings:start (npm run docs:config writes this table from scripts/lib/tool-settings.ts) -->',
    end: '<!-- tool-settings:end -->',
    schemas: [TOOL_SETTINGS_SCHEMA],
  },
] as const;

/** Each document as it is and as the schemas would have it. */
export function generatedTables(): { path: string; current: string; next: string }[] {
  return TABLES.map((t) => {
    const current = readFileSync(t.path, 'utf8');
    return { path: t.path, current, next: withTable(current, configTable(t.schemas), t.start, t.end) };
  });
}

function main(): void {
  const stale = generatedTables().filter((t) => t.next !== t.current);
  const name = (path: string) => relative(resolve(import.meta.dirname, '..'), path);
  if (process.argv.includes('--check')) {
    for (const t of stale)
      process.stderr.write(`${name(t.path)}: its table is out of date; run \`npm run docs:config\`\n`);
    if (stale.length) process.exit(1);
    return;
  }
  for (const t of stale) writeFileSync(t.path, t.next);
  process.stdout.write(stale.length ? `written: ${stale.map((t) => name(t.path)).join(', ')}\n` : 'up to date\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
