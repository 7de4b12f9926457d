import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { RecognitionPool } from '../../../../src/modules/recognition/engines/local/recognition-pool.js';
import { RecognitionRejectedError } from '../../../../src/modules/recognition/recognizer.js';

const threadModule = pathToFileURL(resolve(import.meta.dirname, '../../../helpers/stuck-thread.ts')).href;
const photo = (contentType: string) => ({
  image: Buffer.alloc(1),
  contentType,
  width: 1,
  height: 1,
  catalogue: [],
  runIndex: 0,
});

describe('recognition pool deadline', () => {
  // One thread: the photo after the stuck one is read only once that thread is free again.
  const pool = new RecognitionPool(1, { threadModule, deadlineMs: 1000 });
  after(() => pool.close());

  it('refuses a photo that holds its thread past the deadline as IMAGE_TOO_COMPLEX at once, keeps the thread until it is free, then reads the next', async () => {
    await assert.rejects(
      pool.run(photo('stuck')),
      (err: unknown) =>
        err instanceof RecognitionRejectedError &&
        err.code === 'IMAGE_TOO_COMPLEX' &&
        /more than 1 s of processor time/.test(err.message),
    );
    // Refused while its thread still reads it: the slot is not handed on until the thread is free.
    assert.deepEqual(pool.stats(), { running: 1, queued: 0 });
    const [next] = await pool.run(photo('image/jpeg'));
    assert.ok(String(next!.brand).startsWith('thread '));
    assert.deepEqual(pool.stats(), { running: 0, queued: 0 });
  });

  it('counts the processor time a photo takes, not the time it spends waiting (for a core, or a thread)', async () => {
    // 2.5 s asleep on its thread, past the 1 s deadline in wall time but not in processor time.
    const [slept] = await pool.run(photo('sleeping'));
    assert.ok(String(slept!.brand).startsWith('thread '));
  });

  it('a photo waiting for the thread is not charged its wait: the deadline counts reading time only', async () => {
    const two = new RecognitionPool(1, { threadModule, deadlineMs: 1000 });
    try {
      // The stuck photo holds the only thread for its whole second; the one behind it waits that long
      // and is then read, not refused.
      const stuck = assert.rejects(two.run(photo('stuck')), RecognitionRejectedError);
      const behind = two.run(photo('image/png'));
      await stuck;
      const [read] = await behind;
      assert.ok(String(read!.brand).startsWith('thread '));
    } finally {
      await two.close();
    }
  });
});
