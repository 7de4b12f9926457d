import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');
const workflowsDir = join(root, 'workflows');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
}

/**
 * Workflow code is replayed, so it may only import the workflow SDK, common types and its own
 * folder; anything else (Node built-ins, the ORM, services, activities) only as `import type`.
 */
describe('workflows/ stays deterministic', () => {
  it('imports nothing from Node, the ORM or the rest of the app except types', () => {
    const offences: string[] = [];
    const all = files(workflowsDir);
    assert.ok(all.length > 0);
    for (const file of all) {
      const source = readFileSync(file, 'utf8');
      for (const m of source.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/gm)) {
        const typeOnly = !!m[2];
        const spec = m[3]!;
        if (typeOnly) continue;
        const allowed =
          spec === '@temporalio/workflow' ||
          spec === '@temporalio/common' ||
          (spec.startsWith('.') && resolve(file, '..', spec).startsWith(workflowsDir));
        if (!allowed) offences.push(`${relative(root, file)} imports '${spec}'`);
      }
      if (/\brequire\(|import\(/.test(source)) offences.push(`${relative(root, file)} uses require() or dynamic import()`);
      // Date and Math.random are deterministic inside Temporal's sandbox; process and timers are not ours to use.
      if (/\b(setTimeout|setInterval|process\.)/.test(source)) offences.push(`${relative(root, file)} uses a non-deterministic global`);
    }
    assert.deepEqual(offences, []);
  });
});
