/**
 * A bound on work in flight whose waiters go together. At most `max` run at once; once it is full,
 * a caller waits, and the waiters are let go only when the work in flight has fallen to `resumeAt`,
 * then all of them (up to `max`) in the same turn, in arrival order. With `resumeAt = max - 1` it is
 * an ordinary semaphore that lets one waiter go per slot freed.
 *
 * Why not one per slot (decisions.md, "Held submissions go on together"): the API's workflow starts
 * run behind this bound, and a request that waits here has its next one behind it on the same
 * connection. Let go one at a time, each next request came alone and was committed alone: one
 * statement and one synchronous WAL flush for 1.3-1.6 submissions under sustained load. Let go
 * together, the next requests arrive together and commit as one group (GroupCommit), while the
 * `resumeAt` starts still in flight keep the Temporal server busy.
 */
export class BatchedSlots {
  private running = 0;
  /** Slots handed to waiters let go, not yet taken up by them (their continuation runs later). */
  private handedOut = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly max: number,
    private readonly resumeAt: number,
  ) {
    if (!(resumeAt >= 0 && resumeAt < max)) throw new Error(`resumeAt (${resumeAt}) must be in [0, ${max})`);
  }

  /** Work in flight, and work let go but not yet started. */
  get inFlight(): number {
    return this.running + this.handedOut;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Resolves when the caller holds a slot; it must call `release` once its work is done. A caller
   * arriving while others wait goes behind them, even where a slot is free.
   */
  async acquire(): Promise<void> {
    if (this.inFlight >= this.max || this.waiters.length > 0) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      this.handedOut--;
    }
    this.running++;
  }

  release(): void {
    this.running--;
    if (this.inFlight > this.resumeAt) return;
    while (this.waiters.length > 0 && this.inFlight < this.max) {
      this.handedOut++;
      this.waiters.shift()!();
    }
  }
}
