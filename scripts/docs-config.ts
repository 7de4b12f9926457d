/**
 * `npm run docs:config`: writes the README's configuration table from the config schemas, so a
 * variable is documented in one place, its `.describe()`. `--check` changes nothing and exits 1 when
 * the README's table is not what the schemas give (test/docs/readme.test.ts runs the same check).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { globalRegistry, type z } from 'zod';
import { CONFIG_SCHEMA } from '../src/config.js';
import { OPENAI_SETTINGS_SCHEMA } from '../src/modules/recognition/engines/openai-recognizer.js';

export const TABLE_START = '<!-- config-table:start (npm run docs:config writes this table from src/config.ts) -->';
export const TABLE_END = '<!-- config-table:end -->';

/** Every schema whose variables the table lists, in the table's order. */
export const CONFIG_SCHEMAS: readonly z.ZodObject[] = [CONFIG_SCHEMA, OPENAI_SETTINGS_SCHEMA];

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; defaultValue?: unknown };

/** The default column: the schema's default, `unset` for an optional variable, `required` otherwise. */
function defaultText(field: z.ZodType): string {
  const given = globalRegistry.get(field)?.defaultText;
  if (typeof given === 'string') return given;
  let s: z.ZodType | undefined = field;
  while (s) {
    const def = s.def as Def;
    if (def.type === 'default') {
      const v = def.defaultValue;
      return v === '' ? 'empty' : `\`${String(v)}\``;
    }
    if (def.type === 'optional') return 'unset';
    s = def.innerType ?? def.in; // through .transform() (a pipe) and other wrappers to the default
  }
  return 'required';
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

/** The README with the text between the markers replaced by the table. */
export function withTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the markers ${TABLE_START} … ${TABLE_END}`);
  return `${readme.slice(0, start + TABLE_START.length)}\n\n${table}\n\n${readme.slice(end)}`;
}

export const README_PATH = resolve(import.meta.dirname, '../README.md');

function main(): void {
  const readme = readFileSync(README_PATH, 'utf8');
  const next = withTable(readme, configTable());
  if (process.argv.includes('--check')) {
    if (next !== readme) {
      process.stderr.write('README.md: the configuration table is out of date; run `npm run docs:config`\n');
      process.exit(1);
    }
    return;
  }
  if (next !== readme) writeFileSync(README_PATH, next);
  process.stdout.write(next !== readme ? 'README.md: configuration table written\n' : 'README.md: up to date\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
