import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { planProcesses, processLabel } from '../../scripts/lib/test-processes.js';

describe("npm test's plan of test processes", () => {
  const dir = mkdtempSync(join(tmpdir(), 'plan-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, body: string) => {
    writeFileSync(join(dir, `${name}.test.ts`), body);
    return join(dir, `${name}.test.ts`);
  };
  const files = [
    file('a-short', "it('x', () => {});"),
    // The markers are put together here, so that this file itself matches none.
    file('b-spawns', `${'spawn'}('node');`),
    file('c-long', "it('y', () => {});"),
    file('d-measures', `// npm test: ${'alone'}`),
    file('e-new', "it('z', () => {});"),
    file('f-env', `process.${'env'}.PORT = '0';`),
  ];
  const base = (f: string) => f.slice(dir.length + 1, -'.test.ts'.length);

  it('without times: the files with a process of their own first, then the shared processes; starting a child process is no reason for one', () => {
    const plan = planProcesses(files, 2);
    assert.deepEqual(
      plan.map((p) => [p.label, p.files.map(base), p.alone]),
      [
        ['d-measures', ['d-measures'], true],
        ['f-env', ['f-env'], false],
        ['group-1', ['a-short', 'c-long'], false],
        ['group-2', ['b-spawns', 'e-new'], false],
      ],
    );
  });

  const times = {
    'a-short.test.ts': 100,
    'b-spawns.test.ts': 5_000,
    'c-long.test.ts': 9_000,
    'd-measures.test.ts': 1,
  };

  it("with the last run's times: longest first, a file without a time counted as the longest", () => {
    const plan = planProcesses(files, 1, times, dir);
    assert.deepEqual(
      plan.map((p) => p.label),
      // e-new and f-env count as long as c-long, the longest; a tie keeps the planned (alphabetical) order.
      ['c-long', 'e-new', 'f-env', 'b-spawns', 'a-short', 'd-measures'],
    );
    assert.equal(plan.find((p) => p.label === 'd-measures')!.alone, true, 'still runs by itself, after the others');
  });

  it("with the last run's times: each shared file, longest first, goes to the group with the least time so far", () => {
    const plan = planProcesses(files, 2, { ...times, 'e-new.test.ts': 2_000 }, dir);
    assert.deepEqual(
      plan.map((p) => [p.label, p.files.map(base)]),
      [
        // f-env has no time: the longest, first.
        ['f-env', ['f-env']],
        ['group-1', ['c-long']],
        ['group-2', ['b-spawns', 'e-new', 'a-short']],
        ['d-measures', ['d-measures']],
      ],
    );
  });

  it("names a process by its entry module's name", () => {
    assert.equal(processLabel('/x/.data/test/processes-1/07-group-3.test.mjs'), 'group-3');
  });
});
