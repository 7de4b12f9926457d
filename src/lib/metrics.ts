import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's own Prometheus metrics, one registry per process (API or worker), served on a port
 * of its own (`startMetricsServer`), never on the public API port. Names follow Prometheus
 * conventions (unit suffixes, `_total` counters); no label carries an id, so series stay bounded.
 * Counters of database work move only once its transaction committed (db/after-commit.ts).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'shelf_' });

const registers = [registry];
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  httpRequests: new Counter({
    name: 'shelf_http_requests_total',
    help: 'API requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers,
  }),
  httpDuration: new Histogram({
    name: 'shelf_http_request_duration_seconds',
    help: 'API request latency, by route template, method and status.',
    labelNames: ['route', 'method', 'status'],
    buckets: SECONDS,
    registers,
  }),
  rateLimitRefusals: new Counter({
    name: 'shelf_rate_limit_refusals_total',
    help: 'Requests refused with 429, by category (reads, writes, analyses, auth_failures).',
    labelNames: ['category'],
    registers,
  }),
  idempotentReplays: new Counter({
    name: 'shelf_idempotent_replays_total',
    help: 'Requests answered from a stored Idempotency-Key answer.',
    registers,
  }),
  creditsCharged: new Counter({
    name: 'shelf_credits_charged_total',
    help: 'Credits taken for analyses (one per image), committed.',
    registers,
  }),
  creditsRefunded: new Counter({
    name: 'shelf_credits_refunded_total',
    help: 'Credits given back for failed analyses, committed.',
    registers,
  }),
  analysesFinished: new Counter({
    name: 'shelf_analyses_finished_total',
    help: 'Analyses that reached a final status, by status and error code ("" when completed).',
    labelNames: ['status', 'error_code'],
    registers,
  }),
  recognitionSeconds: new Histogram({
    name: 'shelf_recognition_seconds',
    help: 'Time of one successful recognition pass over one image, by engine.',
    labelNames: ['engine'],
    buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
    registers,
  }),
  recognitionLostSlots: new Gauge({
    name: 'shelf_recognition_lost_slots',
    help: 'Recognition threads still on a photo they were told to stop longer ago than the wall backstop (six times RECOGNITION_DEADLINE_MS, two minutes at least): slots the worker cannot use until they stop.',
    registers,
  }),
  storedPhotoReads: new Counter({
    name: 'shelf_stored_photo_reads_total',
    help: 'Recognition passes that read their photo back from the database (the process that fetched it did not run them, or had let it go).',
    registers,
  }),
  photosFetchedAgain: new Counter({
    name: 'shelf_photos_fetched_again_total',
    help: 'Photos fetched from their URL a second time for a recognition pass that found no stored copy (the fetching worker died before its write committed, decisions.md D335).',
    registers,
  }),
  webhookAttempts: new Counter({
    name: 'shelf_webhook_attempts_total',
    help: 'Webhook and callback delivery attempts, by outcome and status class (2xx…5xx, or none).',
    labelNames: ['outcome', 'status_class'],
    registers,
  }),
  outboxRelayStarts: new Counter({
    name: 'shelf_outbox_relay_starts_total',
    help: 'Workflows the outbox relay started for commits whose own start never happened, by kind.',
    labelNames: ['kind'],
    registers,
  }),
  alertsRaised: new Counter({
    name: 'shelf_alerts_raised_total',
    help: 'Alerts raised (a repeat of an open alert is not counted), by type.',
    labelNames: ['type'],
    registers,
  }),
};

/** `2xx` … `5xx` for an HTTP status, `none` when there was no answer. */
export function statusClass(status: number | null | undefined): string {
  return status ? `${Math.floor(status / 100)}xx` : 'none';
}

/** GET /metrics (text exposition format) on its own port; anything else is 404. */
export async function startMetricsServer(port: number, host: string, extra?: () => Promise<string>): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') return void res.writeHead(404).end();
    Promise.all([registry.metrics(), extra ? extra() : ''])
      .then(([ours, more]) => res.writeHead(200, { 'content-type': registry.contentType }).end(ours + more))
      .catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return server;
}
