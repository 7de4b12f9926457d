/// <reference lib="es2024.sharedmemory" />
// How the recognition pool stops a photo on its thread without ending the thread (recognition-pool.ts):
// ending a worker thread while a native addon's call is in flight (sharp, onnxruntime) aborts the whole
// process on Node 24, so the thread is asked instead, and stops itself at the next checkpoint.
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A photo's stop flag: one 32-bit cell of shared memory, 0 while the photo may be read, 1 once the
 * pool has refused it (past its deadline, or its pass cancelled). It crosses to the thread with the
 * photo and stays shared, so the thread reads the pool's word at once, without a message.
 */
export type StopFlag = Int32Array;

export function stopFlag(): StopFlag {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** Asks the thread reading the photo to stop; it wakes whoever waits on the flag (whenStopped). */
export function raiseStop(flag: StopFlag): void {
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

export function stopRaised(flag: StopFlag): boolean {
  return Atomics.load(flag, 0) !== 0;
}

/** What a checkpoint throws once its photo's flag is raised: the pool has refused the photo already. */
export class RecognitionStoppedError extends Error {
  override name = 'RecognitionStoppedError';
  constructor() {
    super('recognition stopped: the pool refused this photo (past its deadline, or its pass was cancelled)');
  }
}

const reading = new AsyncLocalStorage<StopFlag>();

/** Reads a photo with `flag` as the one every checkpoint() within `work` (and what it awaits) looks at. */
export function readUntilStopped<T>(flag: StopFlag | undefined, work: () => Promise<T>): Promise<T> {
  return flag ? reading.run(flag, work) : work();
}

/**
 * Throws RecognitionStoppedError when the photo being read has been stopped. Called between stages
 * and in every loop of stages whose length depends on the photo (labels, tiles, barcode regions,
 * text lines), never inside a native call: the thread leaves off with nothing native in flight of its
 * own, idle and whole, and its slot is free as soon as the stage it was in ends. Outside a pooled
 * photo (the warm-up photo, a recognizer used directly) it does nothing.
 */
export function checkpoint(): void {
  const flag = reading.getStore();
  if (flag && stopRaised(flag)) throw new RecognitionStoppedError();
}

/**
 * Calls `stopped` as soon as `flag` is raised, from the thread's event loop (which is free while the
 * thread awaits a native call or an OCR helper); the returned function cancels that once the photo
 * is done. Atomics.waitAsync: no polling, and no message the pool must send.
 */
export function whenStopped(flag: StopFlag, stopped: () => void): () => void {
  const wait = Atomics.waitAsync(flag, 0, 0);
  if (!wait.async) {
    stopped();
    return () => {};
  }
  let done = false;
  void wait.value.then(() => {
    if (!done && stopRaised(flag)) stopped();
  });
  return () => {
    done = true;
    // Wakes the waiter above (the flag is this photo's alone), so nothing is left waiting on it.
    Atomics.notify(flag, 0);
  };
}
