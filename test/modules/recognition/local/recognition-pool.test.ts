import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { createLogger } from '../../../../src/lib/logger.js';
import { metrics } from '../../../../src/lib/metrics.js';
import { RecognitionPool } from '../../../../src/modules/recognition/engines/local/recognition-pool.js';
import { RecognitionRejectedError } from '../../../../src/modules/recognition/recognizer.js';
import { waitFor } from '../../../helpers/wait.js';

const threadModule = pathToFileURL(resolve(import.meta.dirname, '../../../helpers/stuck-thread.ts')).href;
const photo = (contentType: string) => ({
  image: Buffer.alloc(1),
  contentType,
  width: 1,
  height: 1,
  catalogue: [],
  runIndex: 0,
});
const tooComplex = (err: unknown) =>
  err instanceof RecognitionRejectedError &&
  err.code === 'IMAGE_TOO_COMPLEX' &&
  /more than 1 s of processor time/.test(err.message);
/** The probe photo's answer (stuck-thread.ts): which thread took it, and that thread's processor time since the last costly photo started. */
async function probe(pool: RecognitionPool) {
  const [answer] = await pool.run(photo('probe'));
  return { thread: answer!.brand, cpuMs: answer!.units };
}
const lostSlots = async () => (await metrics.recognitionLostSlots.get()).values[0]?.value ?? 0;

describe('recognition pool deadline', () => {
  // One thread: the photo after the costly one is read only once that thread is free again.
  const pool = new RecognitionPool(1, { threadModule, deadlineMs: 1000 });
  after(() => pool.close());

  it('refuses a photo past its deadline as IMAGE_TOO_COMPLEX at once, and its thread leaves it off at the next checkpoint: the next photo starts on that thread well before the costly one would have ended', async () => {
    const [before] = await pool.run(photo('image/jpeg'));
    const costly = pool.run(photo('costly'));
    const next = probe(pool);
    await assert.rejects(costly, tooComplex);
    // Refused while its thread still reads it: the slot is held until the thread leaves the photo off.
    assert.deepEqual(pool.stats(), { running: 1, queued: 1, stopping: 1, lost: 0 });
    const { thread, cpuMs } = await next;
    // The thread's own processor time from the costly photo's start to the next photo's: the deadline,
    // the quarter second between the pool's looks at the clock, and the rest of the stage it was in (50
    // ms) — where without the checkpoints the thread would have read all three seconds first.
    console.log(`# costly photo's start to the next photo's, on its thread: ${cpuMs} ms of processor time`);
    assert.ok(cpuMs >= 1000 && cpuMs < 2000, `${cpuMs} ms of processor time`);
    // The same thread, not ended and replaced.
    assert.equal(thread, before!.brand);
    assert.deepEqual(pool.stats(), { running: 0, queued: 0, stopping: 0, lost: 0 });
  });

  it('a cancelled pass is stopped the same way: refused with its reason at once, and the next photo is read on the same thread', async () => {
    const [before] = await pool.run(photo('image/jpeg'));
    const pass = new AbortController();
    const reason = new Error('the activity was cancelled');
    const costly = pool.run({ ...photo('costly'), signal: pass.signal });
    pass.abort(reason);
    await assert.rejects(costly, (err) => err === reason);
    const { thread, cpuMs } = await probe(pool);
    assert.equal(thread, before!.brand);
    assert.ok(cpuMs < 1000, `${cpuMs} ms of processor time`);
  });

  it('counts the processor time a photo takes, not the time it spends waiting (for a core, or a thread)', async () => {
    // 2.5 s asleep on its thread, past the 1 s deadline in wall time but not in processor time.
    const [slept] = await pool.run(photo('sleeping'));
    assert.ok(String(slept!.brand).startsWith('thread '));
  });

  it('a photo waiting for the thread is not charged its wait: the deadline counts reading time only', async () => {
    const two = new RecognitionPool(1, { threadModule, deadlineMs: 1000 });
    try {
      // The stuck photo holds the only thread for its three seconds (it reaches no checkpoint); the one
      // behind it waits that long and is then read, not refused.
      const stuck = assert.rejects(two.run(photo('stuck')), RecognitionRejectedError);
      const behind = two.run(photo('image/png'));
      await stuck;
      const [read] = await behind;
      assert.ok(String(read!.brand).startsWith('thread '));
    } finally {
      await two.close();
    }
  });

  it('a thread that reaches no checkpoint keeps its slot until it is done: past the backstop the slot is counted lost and logged, and counted back when the thread is free', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', 'recognition', { write: (line: string) => void lines.push(line) });
    // The backstop at a tenth of a second: the stuck photo runs two seconds of processor time past its deadline.
    const stuckPool = new RecognitionPool(1, { threadModule, deadlineMs: 1000, lostAfterMs: 100, logger });
    const lostBefore = await lostSlots();
    try {
      const stuck = stuckPool.run(photo('stuck'));
      const next = probe(stuckPool);
      await assert.rejects(stuck, tooComplex);
      await waitFor('the slot to be counted lost', async () => stuckPool.stats().lost === 1, 60_000, 20);
      assert.equal(await lostSlots(), lostBefore + 1);
      const { cpuMs } = await next;
      // The thread read the stuck photo to its end before the next one.
      assert.ok(cpuMs >= 3000, `${cpuMs} ms of processor time`);
      assert.deepEqual(stuckPool.stats(), { running: 0, queued: 0, stopping: 0, lost: 0 });
      assert.equal(await lostSlots(), lostBefore);
      const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
      assert.deepEqual(
        logged.map((l) => [l.level, l.msg]),
        [
          [50, 'a recognition thread told to stop a photo has not stopped; its slot stays taken until it does'],
          [40, 'a recognition thread counted lost has stopped'],
        ],
      );
    } finally {
      await stuckPool.close();
    }
  });
});
