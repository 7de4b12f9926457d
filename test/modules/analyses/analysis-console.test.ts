import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EntityManager } from '@mikro-orm/core';
import sharp from 'sharp';
import { sql } from '../../../src/db/sql.js';
import { idAt } from '../../../src/lib/ids.js';
import { Delivery } from '../../../src/modules/webhooks/delivery.entity.js';
import type { DeliveryRepository } from '../../../src/modules/webhooks/delivery.repository.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { startReceiver } from '../../helpers/receiver.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/** What the console's analysis pages read over the API: the photo, where products are on it, deliveries, dates. */
describe('analyses for the console: photo previews, product boxes, deliveries, date filters, daily usage', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let small: Buffer;
  let smallWithExif: Buffer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stopWorkers: () => Promise<void>;
  /** The deliveries one test made, for the redelivery test after it. */
  let delivered: { analysisId: string; webhookId: string; webhook: string; callback: string } | undefined;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('analysis-console') });
    stopWorkers = (
      await startTestWorkers(
        api.runtime,
        new ScriptedRecognizer(() => [
          product({
            brand: 'Heinz',
            description: 'Beans',
            units: 3,
            price: 1.2,
            box: { x: 0.1, y: 0.2, width: 0.3, height: 0.4 },
          }),
          // Off the photo's edge: kept, cut to the photo.
          product({ brand: 'Edge', description: 'Case', box: { x: 0.9, y: 0.9, width: 0.5, height: 0.5 } }),
          // Not located: no box.
          product({ brand: 'Nowhere', description: 'Box' }),
        ]),
      )
    ).stop;
    org = await createTestOrg(api.runtime, { credits: 20 });
    // A photo taller than the preview's 1,600 px and turned by its EXIF orientation (6: 90° clockwise).
    const photo = await sharp({ create: { width: 2400, height: 1800, channels: 3, background: '#c83' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    // Within 1,600 px and upright: one with no metadata, one carrying a camera's EXIF block.
    const plain = () => sharp({ create: { width: 1200, height: 900, channels: 3, background: '#3a7' } });
    small = await plain().jpeg({ quality: 90 }).toBuffer();
    smallWithExif = await plain()
      .jpeg({ quality: 90 })
      .withExif({ IFD0: { Make: 'Camera', Model: 'Phone' } })
      .toBuffer();
    host = await startImageHost({
      '/shelf.jpg': { type: 'image/jpeg', body: photo },
      '/small.jpg': { type: 'image/jpeg', body: small },
      '/small-exif.jpg': { type: 'image/jpeg', body: smallWithExif },
      // Held until the test has pointed the callback at its receiver.
      '/held-shelf.jpg': { type: 'image/jpeg', body: photo, held: true },
    });
    receiver = await startReceiver();
  });
  after(async () => {
    await stopWorkers?.();
    await receiver?.close();
    await host?.close();
    await api?.close();
  });

  /** The analysis' preview once it is made (after the result is out). */
  const preview = (id: string, key = org.keys.read) =>
    waitFor(
      'the preview',
      async () => {
        const res = await fetch(`${api.baseUrl}/api/v1/analyses/${id}/image`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return res.status === 200 ? res : (await res.arrayBuffer(), false);
      },
      30_000,
    );
  const finished = (id: string, key = org.keys.read) =>
    waitFor(
      `analysis ${id}`,
      async () => {
        const a = await api.request('GET', `/analyses/${id}`, { key });
        return a.body.data.status !== 'processing' && a.body.data;
      },
      60_000,
    );

  it("keeps an upright JPEG preview of the photo, at most 1,600 px, and each product's box on it", async () => {
    const submitted = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.jpg'), externalId: 'preview-1' },
    });
    const analysis = await finished(submitted.body.data.id);
    assert.equal(analysis.status, 'completed');
    assert.deepEqual(
      analysis.products.map((p: { box: unknown }) => p.box),
      [{ x: 0.1, y: 0.2, width: 0.3, height: 0.4 }, { x: 0.9, y: 0.9, width: 0.1, height: 0.1 }, null],
    );
    // The preview is made once the result is out (the next test): it appears just after the status.
    const image = await preview(analysis.id);
    assert.equal(image.headers.get('content-type'), 'image/jpeg');
    assert.match(image.headers.get('cache-control') ?? '', /^private/);
    const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    // Upright (the EXIF turn applied: portrait now) and within 1,600 px.
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 1200, 1600]);
    assert.equal(meta.orientation ?? 1, 1);
    assert.equal(image.headers.get('x-image-width'), '1200');
    // Another organisation's analysis, or none: 404 as everywhere.
    const other = await createTestOrg(api.runtime);
    const theirs = await api.request('GET', `/analyses/${analysis.id}/image`, { key: other.keys.read });
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.error.code, 'NOT_FOUND');
  });

  it('keeps a small upright JPEG without metadata as its own preview; one carrying EXIF is made again without it (D342)', async () => {
    // An organisation of its own: the usage test below counts the shared one's submissions.
    const own = await createTestOrg(api.runtime, { credits: 2 });
    const previewOf = async (path: string) => {
      const submitted = await api.request('POST', '/analyses', {
        key: own.keys.write,
        body: { imageUrl: host.url(path) },
      });
      const analysis = await finished(submitted.body.data.id, own.keys.read);
      assert.equal(analysis.status, 'completed');
      const image = await preview(analysis.id, own.keys.read);
      assert.equal(image.headers.get('x-image-width'), '1200');
      return Buffer.from(await image.arrayBuffer());
    };
    assert.ok((await previewOf('/small.jpg')).equals(small), 'the photo itself, not decoded and encoded again');
    const remade = await previewOf('/small-exif.jpg');
    assert.ok(!remade.equals(smallWithExif));
    const meta = await sharp(remade).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height, meta.exif], ['jpeg', 1200, 900, undefined]);
  });

  it('makes the preview after the result is out, not in the fetch a client waits on, and then lets the photo go', async () => {
    // An organisation of its own: the usage test below counts the shared one's submissions.
    const own = await createTestOrg(api.runtime, { credits: 2 });
    const submitted = await api.request('POST', '/analyses', {
      key: own.keys.write,
      body: { imageUrl: host.url('/shelf.jpg'), externalId: 'preview-after' },
    });
    const id = submitted.body.data.id as string;
    // The answer does not wait for the workflow start (decisions.md), so the handle is asked for only
    // once the analysis is out; then the workflow's end, whose last step is the preview.
    await finished(id, own.keys.read);
    await api.runtime.temporal.client.workflow.getHandle(id).result();
    const em = api.runtime.orm.em.fork();
    const [row] = await sql<{ after: boolean }>(
      em,
      `select i.created_at >= a.completed_at as after from analysis_images i join analyses a on a.id = i.analysis_id
        where a.id = ?`,
      [id],
    );
    assert.equal(row?.after, true, 'the preview was made after the analysis completed');
    const [blobs] = await sql<{ n: number }>(em, `select count(*)::int as n from image_blobs where analysis_id = ?`, [
      id,
    ]);
    assert.equal(blobs!.n, 0);
  });

  it('an analysis whose photo could not be fetched has no preview: 404 saying why', async () => {
    const submitted = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/gone.jpg') },
    });
    const analysis = await finished(submitted.body.data.id);
    assert.equal(analysis.status, 'failed');
    const res = await api.request('GET', `/analyses/${analysis.id}/image`, { key: org.keys.read });
    assert.equal(res.status, 404);
    assert.match(res.body.error.message, /could not be fetched/);
  });

  it("lists an analysis' webhook and callback deliveries with their attempts (admin only)", async () => {
    const hook = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: receiver.url, events: ['analysis.completed'] },
    });
    assert.equal(hook.status, 201, hook.text);
    const submitted = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/held-shelf.jpg'), callbackUrl: receiver.url.replace('http:', 'https:') },
    });
    assert.equal(submitted.status, 202, submitted.text);
    const id = submitted.body.data.id;
    // The test receiver speaks plain HTTP: the HTTPS check is the API's, the row points at the receiver.
    await sql(api.runtime.orm.em.fork(), `update analyses set callback_url = ? where id = ?`, [receiver.url, id]);
    host.release('/held-shelf.jpg');
    await finished(id);
    const deliveries = await waitFor('both deliveries attempted', async () => {
      const res = await api.request('GET', `/analyses/${id}/deliveries`, { key: org.keys.admin });
      assert.equal(res.status, 200, res.text);
      return res.body.data.length === 2 && res.body.data.every((d: any) => d.attempts.length > 0) && res.body.data;
    });
    const webhook = deliveries.find((d: any) => d.webhookId === hook.body.data.id);
    const callback = deliveries.find((d: any) => d.webhookId === null);
    assert.equal(webhook.event, 'analysis.completed');
    assert.equal(webhook.status, 'succeeded');
    assert.equal(webhook.attempts[0].statusCode, 200);
    assert.equal(callback.event, 'analysis.completed');
    assert.equal(callback.status, 'succeeded', JSON.stringify(callback));
    assert.equal((await api.request('GET', `/analyses/${id}/deliveries`, { key: org.keys.write })).status, 403);
    assert.equal((await api.request('GET', `/analyses/an_nope/deliveries`, { key: org.keys.admin })).status, 404);
    delivered = { analysisId: id, webhookId: hook.body.data.id, webhook: webhook.id, callback: callback.id };
  });

  it('lists each delivery with the attempts of the same moment: no attempt that succeeded under a pending delivery', async () => {
    const { analysisId, webhook } = delivered!;
    const em = api.runtime.orm.em.fork();
    const [attempt] = await sql<{ started_at: Date; duration_ms: number }>(
      em,
      `select started_at, duration_ms from delivery_attempts where delivery_id = ? and attempt = 1`,
      [webhook],
    );
    // The webhook's delivery as it stood just before its 2xx was recorded: claimed, not yet answered.
    await sql(em, `delete from delivery_attempts where delivery_id = ?`, [webhook]);
    await sql(em, `update deliveries set status = 'pending', completed_at = null where id = ?`, [webhook]);
    // The 2xx is recorded (one statement, one commit) between the listing's read of the deliveries and
    // its read of their attempts.
    const find = EntityManager.prototype.find;
    let recorded = false;
    EntityManager.prototype.find = async function (this: EntityManager, entityName: any, ...rest: any[]) {
      const found = await (find as any).call(this, entityName, ...rest);
      if (!recorded && entityName === Delivery) {
        recorded = true;
        await api.runtime.orm.em
          .fork()
          .getRepository<Delivery, DeliveryRepository>(Delivery)
          .recordSuccess(
            webhook,
            [webhook, 1, attempt!.started_at, attempt!.duration_ms, 200, null, 'ok', true],
            200,
            null,
          );
      }
      return found;
    } as typeof find;
    let listed;
    try {
      listed = await api.request('GET', `/analyses/${analysisId}/deliveries`, { key: org.keys.admin });
    } finally {
      EntityManager.prototype.find = find;
    }
    assert.ok(recorded, 'the 2xx was recorded during the listing');
    assert.equal(listed.status, 200, listed.text);
    const seen = listed.body.data.find((d: any) => d.id === webhook);
    // Either moment is true; a pending delivery showing a succeeded attempt is neither.
    assert.deepEqual([seen.status, seen.attempts.map((a: any) => a.succeeded)], ['pending', []], JSON.stringify(seen));
    const after = await api.request('GET', `/analyses/${analysisId}/deliveries`, { key: org.keys.admin });
    const now = after.body.data.find((d: any) => d.id === webhook);
    assert.deepEqual([now.status, now.attempts.map((a: any) => a.succeeded)], ['succeeded', [true]]);
  });

  it("redelivers any of the analysis' deliveries, its callback's too, under the same delivery id (admin only)", async () => {
    const { analysisId, webhookId, webhook, callback } = delivered!;
    const path = (deliveryId: string) => `/analyses/${analysisId}/deliveries/${deliveryId}/redeliver`;
    const before = receiver.received.length;
    assert.equal((await api.request('POST', path(callback), { key: org.keys.write })).status, 403);
    const again = await api.request('POST', path(callback), { key: org.keys.admin });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.id, callback);
    assert.equal(again.body.data.webhookId, null);
    const sent = await waitFor('the callback sent again', async () =>
      receiver.received.slice(before).find((r) => r.headers['x-service-delivery'] === callback),
    );
    assert.match(String(sent.headers['x-service-signature']), /v1=/);
    const listed = await waitFor('its second attempt in the log', async () => {
      const res = await api.request('GET', `/analyses/${analysisId}/deliveries`, { key: org.keys.admin });
      const d = res.body.data.find((x: any) => x.id === callback);
      return d.attempts.length === 2 && d.status === 'succeeded' && d;
    });
    assert.deepEqual(
      listed.attempts.map((a: any) => a.attempt),
      [1, 2],
    );
    // Its webhook's delivery the same way, until the webhook is disabled: then nowhere to send it.
    assert.equal((await api.request('POST', path(webhook), { key: org.keys.admin })).status, 200);
    await waitFor('the webhook delivery done', async () => {
      const res = await api.request('GET', `/analyses/${analysisId}/deliveries`, { key: org.keys.admin });
      return res.body.data.find((x: any) => x.id === webhook).status !== 'pending';
    });
    const patched = await api.request('PATCH', `/webhooks/${webhookId}`, {
      key: org.keys.admin,
      body: { status: 'disabled' },
    });
    assert.equal(patched.status, 200, patched.text);
    const refused = await api.request('POST', path(webhook), { key: org.keys.admin });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, 'CONFLICT');
    // Only the analysis' own deliveries, only the organisation's analyses.
    const listed2 = await api.request('GET', '/analyses?limit=10', { key: org.keys.read });
    const other = listed2.body.data.find((a: { id: string }) => a.id !== analysisId);
    const otherPath = `/analyses/${other.id}/deliveries/${callback}/redeliver`;
    assert.equal((await api.request('POST', otherPath, { key: org.keys.admin })).status, 404);
    assert.equal((await api.request('POST', path('dlv_nope'), { key: org.keys.admin })).status, 404);
    const stranger = await createTestOrg(api.runtime);
    assert.equal((await api.request('POST', path(callback), { key: stranger.keys.admin })).status, 404);
  });

  it('filters the list by creation time (createdAfter inclusive, createdBefore exclusive; a date is 00:00 UTC)', async () => {
    const dated = await createTestOrg(api.runtime, { credits: 0 });
    const days = ['2026-01-10T12:00:00Z', '2026-01-11T00:00:00Z', '2026-01-11T23:59:59Z', '2026-01-12T08:00:00Z'];
    const em = api.runtime.orm.em.fork();
    const ids: string[] = [];
    for (const [i, at] of days.entries()) {
      // Ids carry their creation time (ULID): rows made "then" get ids of then, as the service would.
      const id = idAt('analysis', new Date(at)).replace(/0{16}$/, `${i}`.padStart(16, '0'));
      ids.push(id);
      await sql(
        em,
        `insert into analyses (id, organisation_id, created_at, updated_at, image_url, total_runs, total_value, status)
         values (?, ?, ?, ?, 'https://example.com/x.jpg', 1, 0, 'completed')`,
        [id, dated.id, at, at],
      );
    }
    const list = async (query: string) =>
      (await api.request('GET', `/analyses?${query}`, { key: dated.keys.read })).body.data.map((a: any) => a.id);
    assert.deepEqual(await list('createdAfter=2026-01-11&createdBefore=2026-01-12'), [ids[2], ids[1]]);
    assert.deepEqual(await list('createdAfter=2026-01-11T00:00:00Z'), [ids[3], ids[2], ids[1]]);
    assert.deepEqual(await list('createdBefore=2026-01-11T00:00:00%2B00:00'), [ids[0]]);
    const bad = await api.request('GET', '/analyses?createdAfter=yesterday', { key: dated.keys.read });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.details.fields[0].field, 'query.createdAfter');
  });

  it("counts analyses per day for the usage chart, today's included, days without any as zeros", async () => {
    const res = await api.request('GET', '/usage/daily?days=7', { key: org.keys.read });
    assert.equal(res.status, 200, res.text);
    const { series, to, days } = res.body.data;
    assert.equal(days, 7);
    assert.equal(series.length, 7);
    assert.equal(to, new Date().toISOString().slice(0, 10));
    const today = series.at(-1);
    // This test's submissions: two completed, one failed (the missing photo).
    assert.deepEqual(
      { submitted: today.submitted, completed: today.completed, failed: today.failed },
      { submitted: 3, completed: 2, failed: 1 },
    );
    assert.ok(series.slice(0, -1).every((d: any) => d.submitted === 0));
    assert.equal((await api.request('GET', '/usage/daily?days=91', { key: org.keys.read })).status, 422);
  });
});
