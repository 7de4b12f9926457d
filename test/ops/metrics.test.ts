import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startMetricsServer } from '../../src/lib/metrics.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../helpers/image-host.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';
import { uniquePrefix } from '../helpers/worker.js';
import { spawnWorker, stopProcess } from '../helpers/worker-processes.js';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

type Family = ReturnType<typeof parsePrometheusTextFormat>[number];

type Scrape = { families: Family[]; text: string };

/** Scrapes and parses one endpoint with an exposition-format parser (it throws on malformed text). */
async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  const text = await res.text();
  return { families: parsePrometheusTextFormat(text), text };
}

/** The value of one counter or gauge series (0 when absent). */
function value({ families }: Scrape, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  assert.ok(!family || family.type !== 'HISTOGRAM', `${name} is a histogram: use observations()`);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value) : 0;
}

/**
 * A histogram series' observation count (its `_count` sample). The parser above keeps bucket values
 * but drops a histogram's labels, so the `_count` line is read from the text it validated.
 */
function observations({ families, text }: Scrape, name: string, labels: Record<string, string>): number {
  assert.equal(families.find((f) => f.name === name)?.type ?? 'HISTOGRAM', 'HISTOGRAM', name);
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== `${name}_count`) continue;
    const set = Object.fromEntries([...m[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => set[k] === v)) return Number(m[3]);
  }
  return 0;
}

/** No label value may be an id: every series must stay bounded. */
function assertNoIds({ families }: Scrape, where: string) {
  const ID =
    /\b(an|bat|org|wh|dlv|evt|tsk|key|alr|plc)_[0-9a-z]{16,}\b|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
  for (const f of families)
    for (const m of f.metrics)
      for (const [k, v] of Object.entries(m.labels ?? {}))
        assert.doesNotMatch(v, ID, `${where}: ${f.name}{${k}="${v}"}`);
}

describe('Prometheus metrics: the API, the worker and the Temporal SDK', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let apiMetrics: Server;
  let worker: ChildProcess;
  let workerPort: number;
  let sdkPort: number;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const prefix = uniquePrefix('metrics');

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: prefix, ANALYSIS_RUNS: 1 });
    org = await createTestOrg(api.runtime, { credits: 5 });
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(90) } });
    apiMetrics = await startMetricsServer(0, '127.0.0.1');
    receiver = await startReceiver();
    [workerPort, sdkPort] = [await freePort(), await freePort()];
    ({ child: worker } = spawnWorker(prefix, {
      env: { WORKER_HEALTH_PORT: String(workerPort), TEMPORAL_METRICS_PORT: String(sdkPort), SLOW_RECOGNIZER_MS: '50' },
    }));
    await waitFor(
      'the worker',
      () =>
        fetch(`http://127.0.0.1:${workerPort}/`).then(
          (r) => r.ok,
          () => false,
        ),
      60_000,
    );
  });
  after(async () => {
    await stopProcess(worker);
    apiMetrics.close();
    await receiver.close();
    await host.close();
    await api.close();
  });

  it('after one analysis and one delivery the counters moved by exactly that work, and no label is an id', async () => {
    const hook = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: receiver.url, events: ['analysis.completed'] },
    });
    assert.equal(hook.status, 201);
    const apiUrl = `http://127.0.0.1:${(apiMetrics.address() as AddressInfo).port}/metrics`;
    const before = await scrape(apiUrl);
    const posts = { route: '/api/v1/analyses', method: 'POST', status: '202' };

    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.png') },
    });
    assert.equal(res.status, 202);
    await waitFor('the analysis.completed delivery', async () => receiver.received.length === 1, 60_000);
    const done = (await api.request('GET', `/analyses/${res.body.data.id}`, { key: org.keys.read })).body.data;
    assert.equal(done.status, 'completed');

    const ours = await scrape(apiUrl);
    assert.equal(
      value(ours, 'shelf_http_requests_total', posts) - value(before, 'shelf_http_requests_total', posts),
      1,
    );
    assert.equal(
      observations(ours, 'shelf_http_request_duration_seconds', posts) -
        observations(before, 'shelf_http_request_duration_seconds', posts),
      1,
    );
    const gets = { route: '/api/v1/analyses/:id', method: 'GET', status: '200' };
    assert.equal(
      value(ours, 'shelf_http_requests_total', gets) - value(before, 'shelf_http_requests_total', gets),
      1,
      'the GET, by its template',
    );
    assert.equal(value(ours, 'shelf_credits_charged_total') - value(before, 'shelf_credits_charged_total'), 1);
    assertNoIds(ours, 'API');

    // The worker process did the rest: one pass, one completion, one attempt; nothing refunded.
    const work = await waitFor(
      'the attempt to be counted',
      async () => {
        const scraped = await scrape(`http://127.0.0.1:${workerPort}/metrics`);
        return (
          value(scraped, 'shelf_webhook_attempts_total', { outcome: 'succeeded', status_class: '2xx' }) === 1 && scraped
        );
      },
      10_000,
    );
    assert.equal(value(work, 'shelf_analyses_finished_total', { status: 'completed', error_code: '' }), 1);
    assert.equal(value(work, 'shelf_analyses_finished_total', { status: 'failed' }), 0);
    assert.equal(observations(work, 'shelf_recognition_seconds', { engine: 'scripted' }), 1);
    assert.equal(value(work, 'shelf_credits_refunded_total'), 0);
    assert.equal(value(work, 'shelf_webhook_attempts_total', { outcome: 'retry' }), 0);
    assert.ok(value(work, 'shelf_process_resident_memory_bytes') > 0, 'process metrics too');
    assertNoIds(work, 'worker');

    // The SDK's own metrics, from its core's Prometheus exporter. The analysis' workflow ends a step after
    // its delivery (the console's preview): its completion is counted once it has (seen red in CI when scraped at once).
    const sdk = await waitFor(
      "the workflow's completion counted",
      async () => {
        const scraped = await scrape(`http://127.0.0.1:${sdkPort}/metrics`);
        return scraped.families.some((f) => f.name === 'temporal_workflow_completed_total') && scraped;
      },
      10_000,
    );
    const names = new Set(sdk.families.map((f) => f.name));
    for (const name of [
      'temporal_workflow_completed_total',
      'temporal_activity_execution_latency_seconds',
      'temporal_workflow_task_schedule_to_start_latency_seconds',
    ]) {
      assert.ok(names.has(name), `${name} in ${[...names].join(', ')}`);
    }
    assertNoIds(sdk, 'SDK');
  });
});
