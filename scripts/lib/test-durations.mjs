// A node:test reporter that `npm test` adds beside the usual one: one JSON line per test process as
// node:test starts it and as it ends, one per top-level test or suite with the file it was written
// in and its duration, and one per test verdict (pass or fail, suites not counted) with its file, which
// the runner checks against the tests each process says it ran (a verdict lost by --test-force-exit,
// nodejs/node#64833). scripts/test.ts reads them back to print where the time went and to start the
// longest processes first next time.
// The lines are appended to TEST_DURATIONS_PATH synchronously as they come, not yielded to a
// destination stream: node:test holds a later process's events until the ones before it have
// finished, so many arrive at the very end, and --test-force-exit ends the runner before a stream
// has written them (a run lost the lines of its last five processes that way).
// Plain JavaScript: node:test loads its reporters before tsx's hooks are in place.
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import process from 'node:process';

/** @param {AsyncIterable<{ type: string, data?: any }>} source */
export default async function* durations(source) {
  const t0 = Date.now();
  const path = process.env.TEST_DURATIONS_PATH;
  const write = (/** @type {object} */ line) => path && appendFileSync(path, `${JSON.stringify(line)}\n`);
  // TEST_LOSE_VERDICT_ONCE=<file>: the first verdict is not written, and <file> is made so that no
  // later run loses one: how the runner's second run of a process (scripts/test.ts, D355) is tried.
  const loseOnce = process.env.TEST_LOSE_VERDICT_ONCE;
  const lose = () => {
    if (!loseOnce || existsSync(loseOnce)) return false;
    writeFileSync(loseOnce, '');
    return true;
  };
  for await (const event of source) {
    const { name, nesting, file, details } = event.data ?? {};
    if (!file) continue;
    const at = Date.now() - t0;
    const processItself = name === file && nesting === 0;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && !processItself && details?.type !== 'suite')
      if (!lose()) write({ verdict: file });
    if (nesting !== 0) continue;
    // A process is the test named after its entry file; it is dequeued when node:test starts it.
    if (processItself && event.type === 'test:dequeue') write({ start: file, at });
    else if (event.type === 'test:complete')
      write({ [processItself ? 'end' : 'test']: file, ms: Math.round(details?.duration_ms ?? 0), at });
  }
  yield '';
}
