import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { lostVerdicts } from '../../scripts/lib/test-summary.js';

const lib = resolve(import.meta.dirname, '../../scripts/lib');

describe("npm test's check that every test's verdict reached it (nodejs/node#64833)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'verdicts-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Two processes as scripts/test.ts writes them: the usage module first, then the test files.
  const a = join(dir, 'a.test.mjs');
  const b = join(dir, 'b.test.mjs');
  writeFileSync(
    a,
    `import { describe, it, test } from 'node:test';
describe('suite', () => { it('one', () => {}); describe('inner', () => { it('two', () => {}); }); });
test('parent', async (t) => { await t.test('child', () => {}); });`,
  );
  writeFileSync(
    b,
    `import { it } from 'node:test'; it('fails', () => { throw new Error('red'); }); it('passes', () => {});`,
  );
  const usage = join(dir, 'usage.jsonl');
  const entry = (label: string, files: string[]) => {
    const path = join(dir, `${label}.entry.mjs`);
    writeFileSync(
      path,
      [
        `import { recordUsage } from '${pathToFileURL(join(lib, 'test-process-usage.mjs')).href}';\n`,
        `recordUsage(${JSON.stringify(usage)}, ${JSON.stringify(label)});\n`,
        ...files.map((f) => `import '${pathToFileURL(f).href}';\n`),
      ].join(''),
    );
    return path;
  };
  const processes = [
    { label: 'first', files: [a] },
    { label: 'second', files: [b] },
  ];
  const durations = join(dir, 'durations.jsonl');
  spawnSync(
    process.execPath,
    [
      '--test',
      '--test-force-exit',
      '--test-reporter=dot',
      '--test-reporter-destination=/dev/null',
      `--test-reporter=${pathToFileURL(join(lib, 'test-durations.mjs')).href}`,
      '--test-reporter-destination=/dev/null',
      ...processes.map((p) => entry(p.label, p.files)),
    ],
    // Not as a test process of this run: node:test reads NODE_TEST_CONTEXT to tell.
    {
      cwd: dir,
      // Nor does it lose a verdict when the outer run was told to (TEST_LOSE_VERDICT_ONCE, D355).
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        NODE_TEST_CONTEXT: undefined,
        TEST_LOSE_VERDICT_ONCE: undefined,
        TEST_DURATIONS_PATH: durations,
      },
    },
  );
  const run = { durations, usage, offsetMs: 0 };

  it('finds nothing lost when every verdict arrived (tests, subtests and a failure counted, suites not)', () => {
    const ran = readFileSync(usage, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(ran.map((u) => [u.label, u.tests]).sort(), [
      ['first', 4],
      ['second', 2],
    ]);
    assert.equal(readFileSync(durations, 'utf8').match(/"verdict"/g)?.length, 6);
    assert.deepEqual(lostVerdicts([run], processes, dir), []);
  });

  it("names a process whose verdicts are fewer than the tests it ran, as when the last one's line never came", () => {
    const cut = join(dir, 'cut.jsonl');
    const kept = readFileSync(durations, 'utf8').split('\n');
    // The last verdict of a.test.mjs, the first process's file, dropped.
    const last = kept.map((l) => l.includes('"verdict"') && l.includes('a.test.mjs')).lastIndexOf(true);
    writeFileSync(cut, kept.filter((_, i) => i !== last).join('\n'));
    assert.deepEqual(lostVerdicts([{ ...run, durations: cut }], processes, dir), [
      { label: 'first', ran: 4, reported: 3 },
    ]);
  });
});
