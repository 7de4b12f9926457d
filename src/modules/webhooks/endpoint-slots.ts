/**
 * How many deliveries one endpoint may have in flight in this worker process (WEBHOOK_ENDPOINT_CONCURRENCY):
 * a receiver that hangs, or answers after 29 s, then holds at most that many of the worker's delivery
 * slots, and every other endpoint keeps the rest (per-endpoint concurrency, as Svix does). A delivery
 * that finds its endpoint full answers `busy` and the workflow tries again after a short durable wait,
 * counting no attempt; except that while the endpoint answers quickly, it first waits a moment in line
 * for a slot handed over in order (acquire, decisions.md D344).
 *
 * One instance per worker process, built with the activities (no module-level state): the bound is
 * per endpoint and process, so N worker processes give a hung endpoint at most N × the limit.
 */
export class EndpointSlots {
  private readonly endpoints = new Map<string, EndpointState>();

  constructor(
    private readonly perEndpoint: number,
    /** The longest a delivery waits in line for a slot, in ms (WAIT_IN_LINE_MS unless a test says). */
    private readonly waitInLineMs = WAIT_IN_LINE_MS,
  ) {}

  /**
   * A slot of `endpoint`, waiting in line for one if the endpoint's attempts are quick enough that the
   * delivery's place in the line comes within waitInLineMs; null (busy) at once otherwise, or when the
   * wait runs out. The wait holds the caller's activity slot, so it is bounded by time, and taken only
   * while the endpoint answers: its attempts' mean hold and the oldest one still in flight both count,
   * so a receiver that starts to hang turns the next deliveries away at once. Call the release once.
   */
  async acquire(endpoint: string): Promise<(() => void) | null> {
    const state = this.state(endpoint);
    if (state.since.length < this.perEndpoint) return this.hold(endpoint, state);
    const now = performance.now();
    const oldest = now - Math.min(...state.since);
    // Before an attempt has ended only the oldest in flight tells (a burst's first deliveries wait).
    const hold = Math.max(state.heldMs ?? 0, oldest);
    const expectedMs = ((state.waiting.length + 1) * hold) / this.perEndpoint;
    if (expectedMs > this.waitInLineMs) return null;
    return new Promise((resolve) => {
      const waiter: Waiter = {
        give: (release) => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        state.waiting.splice(state.waiting.indexOf(waiter), 1);
        this.forgetIfIdle(endpoint, state);
        resolve(null);
      }, this.waitInLineMs);
      state.waiting.push(waiter);
    });
  }

  private state(endpoint: string): EndpointState {
    let state = this.endpoints.get(endpoint);
    if (!state) this.endpoints.set(endpoint, (state = { since: [], heldMs: null, waiting: [] }));
    return state;
  }

  private hold(endpoint: string, state: EndpointState): () => void {
    const since = performance.now();
    state.since.push(since);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.since.splice(state.since.indexOf(since), 1);
      const held = performance.now() - since;
      state.heldMs = state.heldMs === null ? held : state.heldMs + HELD_WEIGHT * (held - state.heldMs);
      // Handed to the first in line, if any: the slot never stands free while a delivery waits for it.
      const next = state.waiting.shift();
      if (next) next.give(this.hold(endpoint, state));
      else this.forgetIfIdle(endpoint, state);
    };
  }

  /** An endpoint's figures live only while it has deliveries in flight or in line. */
  private forgetIfIdle(endpoint: string, state: EndpointState): void {
    if (state.since.length === 0 && state.waiting.length === 0) this.endpoints.delete(endpoint);
  }
}

type Waiter = { give: (release: () => void) => void };
type EndpointState = {
  /** When each attempt in flight took its slot. */
  since: number[];
  /** The moving mean of how long an attempt held its slot (null before one ended since the endpoint was idle). */
  heldMs: number | null;
  /** Deliveries waiting in line for a slot, first first. */
  waiting: Waiter[];
};

/** Weight of the latest attempt in the mean hold. */
const HELD_WEIGHT = 0.2;
/**
 * The longest a delivery waits in line (acquire): long enough for a burst to a receiver answering in
 * tens of milliseconds to go out back to back, short enough that a receiver hanging meanwhile holds
 * the waiters' activity slots only that long.
 */
const WAIT_IN_LINE_MS = 250;

/**
 * The endpoint a delivery is limited under: its webhook, or for an analysis' callback (each analysis
 * names its own URL) the organisation's callbacks together.
 */
export function endpointKey(ref: { organisationId: string; webhookId: string | null }): string {
  return ref.webhookId ? `webhook:${ref.webhookId}` : `callbacks:${ref.organisationId}`;
}
