/**
 * How many deliveries one endpoint may have in flight in this worker process (WEBHOOK_ENDPOINT_CONCURRENCY):
 * a receiver that hangs, or answers after 29 s, then holds at most that many of the worker's delivery
 * slots, and every other endpoint keeps the rest (per-endpoint concurrency, as Svix does). A delivery
 * that finds its endpoint full does not wait in a slot: its attempt answers `busy` at once and the
 * workflow tries again after a short durable wait (webhook-delivery.workflow.ts), counting no attempt.
 *
 * One instance per worker process, built with the activities (no module-level state): the bound is
 * per endpoint and process, so N worker processes give a hung endpoint at most N × the limit.
 */
export class EndpointSlots {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly perEndpoint: number) {}

  /** A slot of `endpoint`, or null when it already has its share in flight; call the release once. */
  take(endpoint: string): (() => void) | null {
    const held = this.inFlight.get(endpoint) ?? 0;
    if (held >= this.perEndpoint) return null;
    this.inFlight.set(endpoint, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(endpoint) ?? 1) - 1;
      if (left > 0) this.inFlight.set(endpoint, left);
      else this.inFlight.delete(endpoint);
    };
  }
}

/**
 * The endpoint a delivery is limited under: its webhook, or for an analysis' callback (each analysis
 * names its own URL) the organisation's callbacks together.
 */
export function endpointKey(ref: { organisationId: string; webhookId: string | null }): string {
  return ref.webhookId ? `webhook:${ref.webhookId}` : `callbacks:${ref.organisationId}`;
}
