// Loaded into every test process (scripts/test.ts passes it with `--import`). When `assert.ok(value)`
// fails without a message, Node writes one by re-reading the caller's source at the call's position
// and parsing it with acorn. Under tsx that position is in the transformed code (one long line), not
// in the .ts file Node opens: the search is quadratic and took 85–97 s of CPU for
// test/modules/orders/orders.test.ts, ending in "false == true". The event loop is blocked all that
// time, so the API in the same process drops its connections and the next test fails too
// ("fetch failed"). A message given up front skips the search; the value is what the search would
// have failed to say anyway.
// Plain JavaScript: worker threads (the recognition pool's) inherit the test process's execArgv, and
// in a thread this `--import` runs before tsx's hooks are in place there, so a .ts here failed every
// file that starts a recognition thread ("Unknown file extension .ts").
import assert from 'node:assert';
import { inspect } from 'node:util';

for (const target of [assert, assert.strict]) {
  const ok = target.ok;
  target.ok = /** @type {typeof ok} */ (
    function okWithMessage(/** @type {unknown[]} */ ...args) {
      if (args.length >= 1 && !args[0] && args[1] === undefined) {
        args[1] = `The expression evaluated to a falsy value: ${inspect(args[0])}`;
      }
      return Reflect.apply(ok, this, args);
    }
  );
}
