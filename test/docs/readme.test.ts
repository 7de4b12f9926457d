import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { CONFIG_SCHEMAS, configTable, generatedTables, withTable } from '../../scripts/docs-config.js';
import { CONFIG_KEYS } from '../../src/config.js';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** README.md and every Markdown file under docs/. */
function markdownFiles(): string[] {
  const found = [join(root, 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk(join(root, 'docs'));
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

describe('README', () => {
  it('documents every configuration variable in its table', () => {
    const missing = CONFIG_KEYS.filter((k) => !readme.includes(`| \`${k}\` |`));
    assert.deepEqual(missing, []);
  });

  it('holds the configuration table the config schemas give, and docs/tools.md the tools’ (npm run docs:config)', () => {
    assert.equal(withTable(readme, configTable()), readme, 'the table is out of date: run `npm run docs:config`');
    for (const t of generatedTables())
      assert.equal(t.next, t.current, `${relative(root, t.path)}: out of date: run \`npm run docs:config\``);
  });

  it('goes out of date when a schema gains a variable', () => {
    const grown = z.object({ NEW_SETTING: z.string().optional().describe('a setting added without the docs') });
    const table = configTable([...CONFIG_SCHEMAS, grown]);
    assert.match(table, /^\| `NEW_SETTING` \| unset \| a setting added without the docs \|$/m);
    assert.notEqual(withTable(readme, table), readme);
    assert.throws(() => configTable([z.object({ UNDESCRIBED: z.string() })]), /UNDESCRIBED has no \.describe\(\)/);
  });

  it('names the scripts it tells users to run', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts);
    for (const file of markdownFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/npm run ([a-z][a-z:-]*)/g))
        assert.ok(scripts.includes(m[1]!), `${relative(root, file)}: npm run ${m[1]}`);
    }
  });

  it('stays a newcomer’s read: README and docs/performance.md at most 250 lines', () => {
    assert.ok(readme.split('\n').length <= 250, `README.md: ${readme.split('\n').length} lines`);
    const performance = readFileSync(join(root, 'docs/performance.md'), 'utf8');
    assert.ok(performance.split('\n').length <= 250, `docs/performance.md: ${performance.split('\n').length} lines`);
  });

  it('links only to files and headings that exist (README and docs/)', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue; // http(s), mailto: not checked offline
        const [path, anchor] = target.split('#');
        const resolved = path ? resolve(dirname(file), path) : file;
        // ../shared/spec lives beside the checkout, not in it; everything else must be in the repository.
        if (!resolved.startsWith(root + '/') && resolved !== root) continue;
        if (!existsSync(resolved)) {
          broken.push(`${relative(root, file)}: ${target}`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${relative(root, file)}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
