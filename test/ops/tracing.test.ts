import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { initTracing, shutdownTracing } from '../../src/lib/tracing.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../helpers/scripted-recognizer.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../helpers/worker.js';

describe('OpenTelemetry: one trace from the API request to the activities', () => {
  const exporter = new InMemorySpanExporter();
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let stopWorkers: () => Promise<void>;

  before(async () => {
    // Before the API and the workers exist: the Temporal client and the workers pick up tracing as built.
    assert.equal(initTracing('shelf-test', { exporter }), true);
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('tracing'), ANALYSIS_RUNS: 1 });
    org = await createTestOrg(api.runtime, { credits: 5 });
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(90) } });
    const recognizer = new ScriptedRecognizer(async () => [
      product({ brand: 'Heinz', description: 'Baked Beans 415g', units: 2 }),
    ]);
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
    await shutdownTracing();
  });

  it('the request span, the workflow, its fetch and recognition activities and the image fetch share one trace id', async () => {
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.png') },
    });
    assert.equal(res.status, 202);
    const id = res.body.data.id as string;
    await waitFor(
      'the analysis',
      async () =>
        (await api.request('GET', `/analyses/${id}`, { key: org.keys.read })).body.data.status === 'completed',
      60_000,
    );

    const request = await waitFor('the request span', async () =>
      exporter.getFinishedSpans().find((s) => s.name === 'POST /api/v1/analyses'),
    );
    const traceId = request.spanContext().traceId;
    assert.equal(request.attributes['http.response.status_code'], 202);
    const inTrace = () =>
      exporter
        .getFinishedSpans()
        .filter((s) => s.spanContext().traceId === traceId)
        .map((s) => s.name);
    const expected = [
      'StartWorkflow:analysisWorkflow',
      'RunWorkflow:analysisWorkflow',
      'RunActivity:fetchImage',
      'RunActivity:recognizeImage',
      'RunActivity:finalizeAnalysis',
      'HTTP GET',
    ];
    const names = await waitFor(
      'every span of the analysis in the trace',
      async () => {
        const got = inTrace();
        return expected.every((n) => got.includes(n)) && got;
      },
      20_000,
    ).catch(() => inTrace());
    for (const name of expected) assert.ok(names.includes(name), `${name} in trace ${traceId}: ${names.join(', ')}`);

    // The workflow's memo names the request that started it, as the API's X-Request-Id did.
    const described = await api.runtime.temporal.client.workflow.getHandle(id).describe();
    assert.equal(described.memo?.requestId, res.headers.get('x-request-id'));
  });
});
