// A node:test reporter that `npm test` adds beside the usual one: one JSON line per test process as
// node:test starts it and as it ends, one per top-level test or suite with the file it was written
// in and its duration, and one per test verdict (pass or fail, suites not counted) with its file, which
// the runner checks against the tests each process says it ran (a verdict lost by --test-force-exit,
// nodejs/node#64833). scripts/test.ts reads them back to print where the time went and to start the
// longest processes first next time. Lines are written as they come, not at the end: with
// --test-force-exit a reporter's last words may be cut off.
// Plain JavaScript: node:test loads its reporters before tsx's hooks are in place.

/** @param {AsyncIterable<{ type: string, data?: any }>} source */
export default async function* durations(source) {
  const t0 = Date.now();
  for await (const event of source) {
    const { name, nesting, file, details } = event.data ?? {};
    if (!file) continue;
    const at = Date.now() - t0;
    const processItself = name === file && nesting === 0;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && !processItself && details?.type !== 'suite')
      yield `${JSON.stringify({ verdict: file })}\n`;
    if (nesting !== 0) continue;
    // A process is the test named after its entry file; it is dequeued when node:test starts it.
    if (processItself && event.type === 'test:dequeue') yield `${JSON.stringify({ start: file, at })}\n`;
    else if (event.type === 'test:complete')
      yield `${JSON.stringify({ [processItself ? 'end' : 'test']: file, ms: Math.round(details?.duration_ms ?? 0), at })}\n`;
  }
}
