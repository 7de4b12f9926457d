/**
 * Group commit, in process: requests for the same key (an organisation) submitted in the same turn
 * of the event loop go together, and those that arrive while a commit for that key is in flight wait
 * for it, then go together in the next one. There is no timer: a lone request waits only for the end
 * of the current turn (setImmediate: the requests whose bytes arrived with it have been parsed by
 * then); under load each commit (one lock, one WAL flush) carries every request that queued behind
 * the previous one. `flush` answers each item on its own (a value or an error), so
 * one item refused does not refuse the others. If `flush` itself throws for a group (one item's data
 * refused by the database rolls back the whole transaction), each item is flushed again on its own,
 * so only the item at fault fails, not every request that happened to share its commit.
 */
type Waiting<I, R> = { item: I; resolve: (r: R) => void; reject: (e: unknown) => void };
type Group<I, R> = { waiting: Waiting<I, R>[]; running: boolean };

/** An item's own answer: its value, or the error `flush` gave for it alone. */
function settle<I, R>(w: Waiting<I, R>, r: R | Error) {
  if (r instanceof Error) w.reject(r);
  else w.resolve(r);
}

export class GroupCommit<I, R> {
  private readonly groups = new Map<string, Group<I, R>>();

  private readonly maxGroup: number;
  private readonly lingerMs: number;

  /**
   * `maxGroup`: the most items one flush takes (200). `lingerMs`: how long a group waits for company
   * before its first flush. 0 (the default: the end of the turn) for anything a caller waits on;
   * writes nobody waits for can trade a little delay for fewer statements.
   */
  constructor(
    private readonly flush: (key: string, items: I[]) => Promise<(R | Error)[]>,
    opts: { maxGroup?: number; lingerMs?: number } = {},
  ) {
    this.maxGroup = opts.maxGroup ?? 200;
    this.lingerMs = opts.lingerMs ?? 0;
  }

  submit(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let group = this.groups.get(key);
      if (!group) this.groups.set(key, (group = { waiting: [], running: false }));
      group.waiting.push({ item, resolve, reject });
      if (!group.running) void this.drain(key, group);
    });
  }

  private async drain(key: string, group: Group<I, R>) {
    group.running = true;
    // The end of this turn at least: a burst read from several sockets at once is one group, not a
    // group of one followed by a group of the rest (on the submission path that was a fifth more
    // statements than needed).
    await new Promise((r) => (this.lingerMs > 0 ? setTimeout(r, this.lingerMs) : setImmediate(r)));
    while (group.waiting.length > 0) {
      const batch = group.waiting.splice(0, this.maxGroup);
      try {
        const results = await this.flush(
          key,
          batch.map((w) => w.item),
        );
        batch.forEach((w, i) => settle(w, results[i]!));
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        else for (const w of batch) await this.alone(key, w);
      }
    }
    group.running = false;
    this.groups.delete(key);
  }

  private async alone(key: string, w: Waiting<I, R>) {
    try {
      settle(w, (await this.flush(key, [w.item]))[0]!);
    } catch (err) {
      w.reject(err);
    }
  }
}
