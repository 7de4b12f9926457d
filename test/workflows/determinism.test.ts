import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');
const workflowsDir = join(root, 'workflows');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) =>
    statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : [],
  );
}

const contractsDir = join(root, 'src/temporal/contracts');
/** Domain modules the workflows share with the services: pure (no I/O, no imports but each other's). */
const PURE = [
  join(root, 'src/modules/tasks/task-transitions.ts'),
  join(root, 'src/modules/analyses/batch-status.ts'),
  join(root, 'src/lib/image-host.ts'),
];

type Import = { spec: string; typeOnly: boolean; target: string | null };
function importsOf(file: string): Import[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => {
    const spec = m[3]!;
    return {
      spec,
      typeOnly: !!m[2],
      target: spec.startsWith('.') ? resolve(file, '..', spec).replace(/\.js$/, '.ts') : null,
    };
  });
}

/**
 * Workflow code is replayed, so it may only import the workflow SDK, common types, its own folder,
 * the contracts (src/temporal/contracts) and the pure domain modules listed above; the contracts in
 * turn import nothing of the app at run time (types only). Node built-ins, the ORM, services and
 * activities never reach the workflow bundle.
 */
describe('workflows/ stays deterministic', () => {
  it('imports only the SDK, the contracts and pure modules; the contracts import the app as types only', () => {
    const offences: string[] = [];
    const all = files(workflowsDir);
    assert.ok(all.length > 0);
    const sdk = (spec: string) => spec === '@temporalio/workflow' || spec === '@temporalio/common';
    for (const file of all) {
      const source = readFileSync(file, 'utf8');
      for (const { spec, target } of importsOf(file)) {
        const allowed =
          sdk(spec) ||
          (target !== null &&
            (target.startsWith(workflowsDir) || target.startsWith(contractsDir) || PURE.includes(target)));
        if (!allowed) offences.push(`${relative(root, file)} imports '${spec}'`);
      }
      if (/\brequire\(|import\(/.test(source))
        offences.push(`${relative(root, file)} uses require() or dynamic import()`);
      // Date and Math.random are deterministic inside Temporal's sandbox; process and timers are not ours to use.
      if (/\b(setTimeout|setInterval|process\.)/.test(source))
        offences.push(`${relative(root, file)} uses a non-deterministic global`);
    }
    for (const file of files(contractsDir)) {
      for (const { spec, typeOnly, target } of importsOf(file)) {
        if (typeOnly || sdk(spec) || (target !== null && (target.startsWith(contractsDir) || PURE.includes(target))))
          continue;
        offences.push(`${relative(root, file)} imports '${spec}' at run time`);
      }
    }
    for (const file of PURE) {
      for (const { spec, target } of importsOf(file))
        if (!(target !== null && PURE.includes(target)))
          offences.push(`${relative(root, file)} (pure) imports '${spec}'`);
    }
    assert.deepEqual(offences, []);
  });
});
