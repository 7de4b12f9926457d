import { LockMode } from '@mikro-orm/core';
import sharp from 'sharp';
import type { EntityManager } from '@mikro-orm/postgresql';
import { throughDatabaseRestart } from '../../db/database-unavailable.js';
import { newId } from '../../lib/ids.js';
import { fitText, storableText } from '../../lib/text.js';
import type { AlertService } from '../alerts/alert.service.js';
import type { CreditService } from '../credits/credit.service.js';
import type { EventService } from '../events/event.service.js';
import { InventoryItem } from '../inventory/inventory-item.entity.js';
import { Product } from '../products/product.entity.js';
import { CatalogueMatcher } from '../recognition/catalogue-matcher.js';
import { mergeRuns } from '../recognition/merge-runs.js';
import { boundProduct } from '../recognition/product-bounds.js';
import {
  confidenceLevel,
  type CatalogueEntry,
  type RecognizedProduct,
  type Recognizer,
} from '../recognition/recognizer.js';
import { Analysis } from './analysis.entity.js';
import { AnalysisRun } from './analysis-run.entity.js';
import { ImageBlob } from './image-blob.entity.js';
import { fetchImage, type FetchedImage, type ImageFetchOptions } from './image-fetcher.js';
import { KeptPhotos, type KeptPhoto } from './kept-photos.js';
import { metrics } from '../../lib/metrics.js';
import { afterCommit } from '../../db/after-commit.js';
import type { AnalysisOutcome, PreparedImage } from '../../temporal/contracts/analysis.js';
import type { ImageBlobRepository } from './image-blob.repository.js';
import type { InventoryRepository } from '../inventory/inventory.repository.js';

/**
 * The dedupe key of an analysis' final event (and failure alert): one per run of it, so an operator's
 * retry (analyses:retry) reports its own outcome instead of finding the failed run's event.
 */
export function finalKey(kind: string, analysis: Pick<Analysis, 'id' | 'retries'>): string {
  return `${kind}:${analysis.id}${analysis.retries > 0 ? `:retry-${analysis.retries}` : ''}`;
}

const cents = (v: number | string | null | undefined) => (v == null ? null : Math.round(Number(v) * 100));

/** The longest side of the photo the console shows (AnalysisImage): enough to read labels on a wide screen. */
export const PREVIEW_MAX_PX = 1600;

/**
 * A JPEG already within PREVIEW_MAX_PX, upright, in RGB and carrying no EXIF, XMP or IPTC block (which
 * the encode below drops: a camera's location stays out of the console) is kept as its own preview up
 * to this size: made again it is decoded and encoded for about the same bytes (20–24 ms of a core for a
 * 1600×1200 photo, 4 % of what a photo costs the worker; decisions.md D342). Past it a smaller copy is
 * worth making.
 */
const PREVIEW_KEPT_BYTES = 1024 * 1024;

/** The console's copy of a photo: upright (as recognition sees it), at most PREVIEW_MAX_PX a side, a JPEG. */
async function previewOf(bytes: Buffer): Promise<{ data: Buffer; info: { width: number; height: number } }> {
  if (bytes.length <= PREVIEW_KEPT_BYTES) {
    const m = await sharp(bytes).metadata();
    if (
      m.format === 'jpeg' &&
      (m.orientation ?? 1) === 1 &&
      m.space === 'srgb' &&
      !m.exif &&
      !m.xmp &&
      !m.iptc &&
      m.width <= PREVIEW_MAX_PX &&
      m.height <= PREVIEW_MAX_PX
    )
      return { data: bytes, info: { width: m.width, height: m.height } };
  }
  return sharp(bytes)
    .rotate()
    .resize({ width: PREVIEW_MAX_PX, height: PREVIEW_MAX_PX, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 80 })
    .toBuffer({ resolveWithObject: true });
}

type CachedCatalogue = { version: string; entries: CatalogueEntry[]; matcher: CatalogueMatcher };
/** Organisations whose catalogues a process keeps (at 1,000 items, about 1 MB each with the matcher's index). */
const CATALOGUES_KEPT = 50;
/**
 * Fetched photos a process keeps for its own recognition passes (KeptPhotos): four of the largest
 * photos accepted (IMAGE_MAX_BYTES, 15 MiB), or some twenty 3 MB shelf photos waiting for a thread.
 */
const KEPT_PHOTO_BYTES = 64 * 1024 * 1024;
/**
 * Photos whose write to PostgreSQL may go on beside recognition, in bytes (decisions.md D335): past
 * this a fetch waits for its own write, as before, so a batch's backlog of fetches cannot hold more
 * than this in memory waiting for connections.
 */
const WRITES_BESIDE_BYTES = 64 * 1024 * 1024;

export type AnalysisProcessingDeps = {
  em: EntityManager;
  credits: CreditService;
  events: EventService;
  alerts: AlertService;
  /** PHOTO_WRITE_WAITS_FOR_PASS_MS. */
  writeWaitsForPassMs: number;
};

/** Domain work of one analysis, called by its workflow's activities. Every step is idempotent. */
export class AnalysisProcessingService {
  private readonly catalogues = new Map<string, CachedCatalogue>();
  /** The photos this process fetched, handed to its own recognition passes (decisions.md D245). */
  private readonly kept = new KeptPhotos(KEPT_PHOTO_BYTES);
  /** Photos' writes going on beside recognition (D335), by analysis, and their bytes. */
  private readonly writing = new Map<string, Promise<void>>();
  private writingBytes = 0;
  /** Writes beside recognition waiting for a pass to begin (D339): what lets each go on, by analysis. */
  private readonly passBegun = new Map<string, () => void>();
  /** Passes' looks for a photo they were not given (photoOf): its stored copy, or a fetch again; by analysis. */
  private readonly finding = new Map<string, Promise<KeptPhoto>>();

  private readonly em: EntityManager;
  private readonly credits: CreditService;
  private readonly events: EventService;
  private readonly alerts: AlertService;
  /**
   * How long a photo's write beside recognition, its lock held, waits for this process's first pass on
   * the photo to begin before it goes on anyway (PHOTO_WRITE_WAITS_FOR_PASS_MS, decisions.md D339).
   * Begun at once, its 10–30 ms of PostgreSQL's CPU fell in the workflow task that schedules
   * recognition, and on two cores made the fetch step 20–30 ms longer; a pass begins 25–45 ms after
   * the fetch answers on an idle worker. A pass on another worker waits on the lock at most this long more.
   */
  private readonly writeWaitsForPassMs: number;

  constructor({ em, credits, events, alerts, writeWaitsForPassMs }: AnalysisProcessingDeps) {
    this.em = em;
    this.credits = credits;
    this.events = events;
    this.alerts = alerts;
    this.writeWaitsForPassMs = writeWaitsForPassMs;
  }

  private async load(analysisId: string): Promise<Analysis> {
    return this.em.findOneOrFail(Analysis, { id: analysisId });
  }

  /**
   * Fetches and checks the image, then parks the bytes in the database for the recognition passes.
   * With `previewLater` the console's preview is left to storePreview, after the result: made here it
   * cost a client 40–80 ms of every 1920–3840 px photo's time to result (decode, resize, encode).
   */
  async prepareImage(analysisId: string, opts: ImageFetchOptions & { previewLater?: boolean }): Promise<PreparedImage> {
    // Our database restarting is not the image host's doing: its statements wait for it here rather
    // than fail the step, whose few attempts are the host's (found by `npm run soak`: a PostgreSQL
    // restart failed a served photo with IMAGE_UNREACHABLE, quoting the server's sentence).
    const analysis = await throughDatabaseRestart(() => this.load(analysisId));
    if (analysis.status !== 'processing') return { alreadyFinal: true };
    const blobs = this.em.getRepository<ImageBlob, ImageBlobRepository>(ImageBlob);
    const blobOf = (image: FetchedImage) => ({
      analysisId,
      contentType: image.contentType,
      width: image.width,
      height: image.height,
      bytes: image.bytes,
    });
    // Stored while the fetch decodes the photo in full (fetchImage's `keep`): the write waits on the
    // database, the decode on libvips' threads. A photo the decode refuses fails the analysis, whose
    // end deletes what was stored (fail, or storePreview after it). With `decodeInFull` false the
    // recognizer's own decode is the one that refuses it (D282), and nothing is decoded here: the write
    // was all the fetch step waited on (35–45 ms a MB here), so the write goes on beside recognition
    // (D335), and so it does beside a decode.
    const image = await fetchImage(analysis.imageUrl, {
      ...opts,
      keep: opts.previewLater
        ? (fetched) =>
            this.writingBytes + fetched.bytes.length <= WRITES_BESIDE_BYTES
              ? this.writeBeside(analysisId, fetched.bytes.length, (b) => b.store(blobOf(fetched)))
              : throughDatabaseRestart(() => blobs.store(blobOf(fetched)))
        : undefined,
      // Histories made before previewLater make the preview from the photo here: it is decoded here.
      decodeInFull: opts.decodeInFull !== false || !opts.previewLater,
    });
    if (!opts.previewLater) {
      const preview = await previewOf(image.bytes);
      await throughDatabaseRestart(() =>
        blobs.storeWithPreview(blobOf(image), {
          organisationId: analysis.organisationId,
          width: preview.info.width,
          height: preview.info.height,
          data: preview.data,
        }),
      );
    }
    // Stored first: the copy in PostgreSQL is what a pass on another worker, or after a restart, reads.
    this.kept.keep(analysisId, {
      bytes: image.bytes,
      contentType: image.contentType,
      width: image.width,
      height: image.height,
      organisationId: analysis.organisationId,
    });
    return { totalRuns: analysis.totalRuns, width: image.width, height: image.height };
  }

  /**
   * Starts the photo's write and answers once its transaction holds the photo's write lock (or the
   * write failed first), without waiting for the write itself. In this process what reads the stored
   * copy waits for the write (written): a pass without the kept photo, and the preview, which replaces
   * the row. A pass elsewhere waits on the lock (photoOf). A worker killed before it commits loses only
   * the write: the lock goes with its connection, and a pass that finds no copy fetches the photo again.
   */
  private writeBeside(
    analysisId: string,
    bytes: number,
    write: (blobs: ImageBlobRepository) => Promise<void>,
  ): Promise<void> {
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    this.writingBytes += bytes;
    const done = throughDatabaseRestart(() =>
      this.em.transactional(async (em) => {
        const blobs = em.getRepository<ImageBlob, ImageBlobRepository>(ImageBlob);
        await blobs.lockForWrite(analysisId);
        locked();
        await this.firstPassBegun(analysisId);
        await write(blobs);
      }),
    ).finally(() => {
      this.writingBytes -= bytes;
      if (this.writing.get(analysisId) === done) this.writing.delete(analysisId);
    });
    this.writing.set(analysisId, done);
    // Awaited (and its failure seen) by written(); not an unhandled rejection meanwhile.
    done.catch(() => {});
    return Promise.race([lockHeld, done]);
  }

  /** Resolves when this process begins a pass on the photo (recognize), or writeWaitsForPassMs after the call. */
  private firstPassBegun(analysisId: string): Promise<void> {
    return new Promise((resolve) => {
      const go = () => {
        clearTimeout(timer);
        if (this.passBegun.get(analysisId) === go) this.passBegun.delete(analysisId);
        resolve();
      };
      const timer = setTimeout(go, this.writeWaitsForPassMs);
      this.passBegun.set(analysisId, go);
    });
  }

  /** This process's write of the analysis' photo, if one is going on, finished (or failed: then false). */
  private async written(analysisId: string): Promise<boolean> {
    const write = this.writing.get(analysisId);
    if (!write) return true;
    return write.then(
      () => true,
      () => false,
    );
  }

  /**
   * The console's preview of a finished analysis, made from its stored photo, which is then deleted,
   * in one statement: run again (a retried activity) it finds no photo and does nothing. A photo that
   * no longer decodes (it did for recognition) gets no preview, and is deleted all the same.
   */
  async storePreview(analysisId: string): Promise<void> {
    const blobs = this.em.getRepository<ImageBlob, ImageBlobRepository>(ImageBlob);
    // The photo this process fetched is still kept (finalize and fail leave it for this step): the
    // preview is made from it, and the stored copy, whose row says the preview is still to be made, is
    // not read back (a bytea read, 25–50 ms for a real photo, D245). Otherwise the stored copy, as before.
    const kept = this.kept.get(analysisId);
    this.kept.drop(analysisId);
    // The row must be there to be replaced by the preview (a write beside recognition may still be going on).
    await this.written(analysisId);
    const stored = kept
      ? await blobs.ownerOfFinished(analysisId).then((owner) => owner && { ...owner, bytes: kept.bytes })
      : await blobs.ofFinished(analysisId);
    if (!stored) return;
    const preview = await previewOf(stored.bytes).catch(() => null);
    // The photo is its own preview: moved to it where it is stored, not sent back (D375).
    if (preview?.data === stored.bytes)
      return blobs.moveToPreview(analysisId, stored.organisation_id, preview.info.width, preview.info.height);
    await blobs.replaceWithPreview(
      analysisId,
      preview
        ? {
            organisationId: stored.organisation_id,
            width: preview.info.width,
            height: preview.info.height,
            data: preview.data,
          }
        : null,
    );
  }

  /**
   * Previews older than `days` deleted (the worker's housekeeping), and stored photos of finished
   * analyses an hour old that storePreview never took (it gave up); the number of previews deleted.
   */
  async purgePreviews(days: number): Promise<number> {
    return this.em.getRepository<ImageBlob, ImageBlobRepository>(ImageBlob).purgePreviews(days);
  }

  /** The organisation's catalogue as recognition and matching take it (cached while it is unchanged). */
  async catalogue(organisationId: string, em: EntityManager = this.em): Promise<CatalogueEntry[]> {
    return (await this.cachedCatalogue(organisationId, em)).entries;
  }

  /**
   * An organisation's catalogue and its matcher, kept by this process while the catalogue is
   * unchanged. Loading and indexing 1,000 items cost 25–65 ms of every analysis' finalize (and as much
   * before its recognition); whether anything changed costs one aggregate over the same rows, ~1 ms:
   * their number, latest change and a sum of hashes of each row's id and change time, so an item
   * added, changed or deleted (or one deleted and another added) gives another version.
   */
  private async cachedCatalogue(organisationId: string, em: EntityManager): Promise<CachedCatalogue> {
    const version = await em
      .getRepository<InventoryItem, InventoryRepository>(InventoryItem)
      .catalogueVersion(organisationId);
    const kept = this.catalogues.get(organisationId);
    if (kept?.version === version) {
      // Most recently used last: the first is the one to let go.
      this.catalogues.delete(organisationId);
      this.catalogues.set(organisationId, kept);
      return kept;
    }
    const entries = await this.loadCatalogue(organisationId, em);
    const fresh: CachedCatalogue = { version, entries, matcher: new CatalogueMatcher(entries) };
    this.catalogues.delete(organisationId);
    this.catalogues.set(organisationId, fresh);
    if (this.catalogues.size > CATALOGUES_KEPT) this.catalogues.delete(this.catalogues.keys().next().value!);
    return fresh;
  }

  private async loadCatalogue(organisationId: string, em: EntityManager): Promise<CatalogueEntry[]> {
    const items = await em.find(InventoryItem, { organisationId }, { orderBy: { id: 'asc' } });
    return items.map((i) => ({
      sku: i.sku,
      upc: i.upc ?? null,
      brand: i.brand,
      name: i.name,
      category: i.category ?? null,
      subcategory: i.subcategory ?? null,
      sizeValue: i.sizeValue == null ? null : Number(i.sizeValue),
      sizeUnit: i.sizeUnit ?? null,
      expectedPrice: i.expectedPrice == null ? null : Number(i.expectedPrice),
      currency: i.currency ?? null,
    }));
  }

  /** One recognition pass; its result row is upserted, so a retried pass overwrites rather than adds. */
  async recognize(
    analysisId: string,
    runIndex: number,
    recognizer: Recognizer,
    { signal, refetch }: { signal?: AbortSignal; refetch?: ImageFetchOptions } = {},
  ): Promise<{ productCount: number }> {
    // The photo's write, if this process holds it back for a pass (D339), goes on now, beside the read.
    this.passBegun.get(analysisId)?.();
    const photo = this.kept.get(analysisId) ?? (await this.photoOf(analysisId, refetch));
    const started = Date.now();
    const products = await recognizer.recognize({
      image: photo.bytes,
      contentType: photo.contentType,
      width: photo.width,
      height: photo.height,
      catalogue: await this.catalogue(photo.organisationId),
      runIndex,
      signal,
    });
    metrics.recognitionSeconds.observe({ engine: recognizer.name }, (Date.now() - started) / 1000);
    await this.em.upsert(AnalysisRun, {
      analysisId,
      runIndex,
      status: 'succeeded',
      recognizer: recognizer.name,
      // Bounded before the run is kept, not only before the products are written: the run's jsonb
      // refuses what the products table does (a NUL in a model's answer), and would fail the pass.
      products: products.map(boundProduct),
      error: null,
      durationMs: Date.now() - started,
      createdAt: new Date(),
    });
    return { productCount: products.length };
  }

  /**
   * The photo for a pass that has no kept copy: as the fetch stored it (once any write of it going on
   * here is done), or, where no copy was stored (the fetching worker was killed before its write beside
   * recognition committed, D335), fetched again from its URL with `refetch`, once for this process's
   * passes, and stored as the fetch stores it. One look at a time per analysis, read and fetch
   * together: a pass whose read came back empty just after another's fetch again had finished would
   * otherwise fetch the photo a second time (D369).
   */
  private photoOf(analysisId: string, refetch?: ImageFetchOptions): Promise<KeptPhoto> {
    let finding = this.finding.get(analysisId);
    if (!finding) {
      finding = this.storedOrFetchedAgain(analysisId, refetch).finally(() => this.finding.delete(analysisId));
      this.finding.set(analysisId, finding);
    }
    return finding;
  }

  private async storedOrFetchedAgain(analysisId: string, refetch?: ImageFetchOptions): Promise<KeptPhoto> {
    await this.written(analysisId);
    const stored = await this.storedPhoto(analysisId, { afterWrite: true });
    if (stored) return stored;
    if (!refetch) throw new Error(`no stored image for ${analysisId}`);
    return this.fetchAgain(analysisId, refetch);
  }

  private async fetchAgain(analysisId: string, refetch: ImageFetchOptions): Promise<KeptPhoto> {
    metrics.photosFetchedAgain.inc();
    const prepared = await this.prepareImage(analysisId, { ...refetch, previewLater: true });
    if ('alreadyFinal' in prepared) throw new Error(`analysis ${analysisId} is no longer processing`);
    // Kept as the fetch keeps it, else (let go at once: past the kept bytes) stored as it stores it.
    return this.kept.get(analysisId) ?? this.storedOrFetchedAgain(analysisId);
  }

  /**
   * The photo as the fetch stored it, and whose it is, in one round trip (a pass needs nothing else of
   * the analysis): for a pass this process did not fetch, or whose photo it has let go.
   */
  private async storedPhoto(analysisId: string, read: { afterWrite?: boolean } = {}): Promise<KeptPhoto | undefined> {
    const blob = await this.em
      .getRepository<ImageBlob, ImageBlobRepository>(ImageBlob)
      .forRecognition(analysisId, read);
    if (!blob) return undefined;
    metrics.storedPhotoReads.inc();
    return {
      bytes: blob.bytes,
      contentType: blob.content_type,
      width: blob.width,
      height: blob.height,
      organisationId: blob.organisation_id,
    };
  }

  /**
   * Merges the successful passes, matches the catalogue, writes products, counters, status and the
   * event in one transaction. The row lock and the status check make a repeat a no-op.
   */
  async finalize(
    analysisId: string,
    failedPasses: { runIndex: number; message: string }[],
    { keepImage = false }: { keepImage?: boolean } = {},
  ): Promise<AnalysisOutcome> {
    // No pass needs the photo once its runs are merged; storePreview, which follows when the stored
    // copy is kept (keepImage), makes the preview from it and lets it go (D283).
    if (!keepImage) this.kept.drop(analysisId);
    return this.em.transactional(async (em) => {
      const analysis = await em.findOneOrFail(Analysis, { id: analysisId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (analysis.status !== 'processing') return this.outcomeOf(em, analysis);
      const runs = await em.find(AnalysisRun, { analysisId, status: 'succeeded' }, { orderBy: { runIndex: 'asc' } });
      if (runs.length === 0) {
        const reason = failedPasses.map((f) => `pass ${f.runIndex + 1}: ${f.message}`).join('; ');
        return this.failIn(
          em,
          analysis,
          'RECOGNITION_FAILED',
          `Every recognition pass failed. ${reason}`.trim(),
          keepImage,
        );
      }
      const merged = mergeRuns(runs.map((r) => r.products ?? []));
      const { matcher } = await this.cachedCatalogue(analysis.organisationId, em);
      let totalUnits = 0;
      let totalCents = 0;
      merged.forEach((p, position) => {
        const row = this.toProductRow(analysis, p, position, matcher);
        totalUnits += row.units;
        const unitCents = cents(row.discountedPrice ?? row.price);
        if (unitCents != null) totalCents += unitCents * row.units;
        em.create(Product, row);
      });
      analysis.status = 'completed';
      analysis.completedRuns = runs.length;
      analysis.failedRuns = analysis.totalRuns - runs.length;
      analysis.productCount = merged.length;
      analysis.totalUnits = totalUnits;
      analysis.totalValue = (totalCents / 100).toFixed(2);
      analysis.completedAt = new Date();
      await em.flush();
      afterCommit(em, () => metrics.analysesFinished.inc({ status: 'completed', error_code: '' }));
      const event = await this.events.record(em, {
        organisationId: analysis.organisationId,
        type: 'analysis.completed',
        dedupeKey: finalKey('analysis.completed', analysis),
        analysisId: analysis.id,
        data: {
          id: analysis.id,
          ...(analysis.externalId ? { externalId: analysis.externalId } : {}),
          ...(analysis.metadata ? { metadata: analysis.metadata } : {}),
          status: 'completed',
          totalRuns: analysis.totalRuns,
          productCount: analysis.productCount,
          totalUnits: analysis.totalUnits,
          totalValue: Number(analysis.totalValue),
          completedAt: analysis.completedAt.toISOString(),
        },
      });
      // Kept for storePreview, which deletes it once the preview is made (after the result is out).
      if (!keepImage) await em.nativeDelete(ImageBlob, { analysisId });
      return this.outcome(analysis, [event]);
    });
  }

  /** Ends the analysis as failed (image unusable), refunds its credit once, records the event. */
  async fail(
    analysisId: string,
    code: string,
    message: string,
    { keepImage = false }: { keepImage?: boolean } = {},
  ): Promise<AnalysisOutcome> {
    if (!keepImage) this.kept.drop(analysisId);
    return this.em.transactional(async (em) => {
      const analysis = await em.findOneOrFail(Analysis, { id: analysisId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (analysis.status !== 'processing') return this.outcomeOf(em, analysis);
      return this.failIn(em, analysis, code, message, keepImage);
    });
  }

  private async failIn(
    em: EntityManager,
    analysis: Analysis,
    code: string,
    reason: string,
    keepImage = false,
  ): Promise<AnalysisOutcome> {
    // The reason may quote a provider's or a model's words: kept storable, or failing would fail.
    const message = storableText(fitText(reason, 2000));
    const succeeded = await em.count(AnalysisRun, { analysisId: analysis.id, status: 'succeeded' });
    analysis.status = 'failed';
    analysis.completedRuns = succeeded;
    analysis.failedRuns = analysis.totalRuns - succeeded;
    analysis.errorCode = code;
    analysis.errorMessage = message;
    analysis.completedAt = new Date();
    await em.flush();
    const refunded = await this.credits.refund(em, analysis.id);
    afterCommit(em, () => {
      metrics.analysesFinished.inc({ status: 'failed', error_code: code });
      if (refunded) metrics.creditsRefunded.inc();
    });
    const event = await this.events.record(em, {
      organisationId: analysis.organisationId,
      type: 'analysis.failed',
      dedupeKey: finalKey('analysis.failed', analysis),
      analysisId: analysis.id,
      data: {
        id: analysis.id,
        ...(analysis.externalId ? { externalId: analysis.externalId } : {}),
        ...(analysis.metadata ? { metadata: analysis.metadata } : {}),
        status: 'failed',
        failedRuns: analysis.failedRuns,
      },
    });
    await this.alerts.raise(em, {
      organisationId: analysis.organisationId,
      type: 'analysis_failed',
      severity: 'warning',
      title: 'Analysis failed',
      message: fitText(`Analysis ${analysis.id} failed (${code}): ${message}`, 1000),
      sourceType: 'analysis',
      sourceId: analysis.id,
      dedupeKey: finalKey('analysis_failed:analysis', analysis),
      placeId: analysis.placeId,
      metadata: {
        analysisId: analysis.id,
        errorCode: code,
        imageUrl: analysis.imageUrl,
        externalId: analysis.externalId ?? null,
        taskId: analysis.taskId ?? null,
      },
    });
    if (!keepImage) await em.nativeDelete(ImageBlob, { analysisId: analysis.id });
    return this.outcome(analysis, [event]);
  }

  private async outcomeOf(em: EntityManager, analysis: Analysis): Promise<AnalysisOutcome> {
    const ids = await this.events.idsByDedupeKey(em, finalKey(`analysis.${analysis.status}`, analysis));
    return this.outcome(
      analysis,
      ids.map((id) => ({ id })),
    );
  }

  private outcome(analysis: Analysis, events: { id: string }[]): AnalysisOutcome {
    return {
      analysisId: analysis.id,
      status: analysis.status as 'completed' | 'failed',
      productCount: analysis.productCount,
      errorCode: analysis.errorCode ?? null,
      eventIds: events.map((e) => e.id),
      taskId: analysis.taskId ?? null,
    };
  }

  private toProductRow(analysis: Analysis, recognized: RecognizedProduct, position: number, matcher: CatalogueMatcher) {
    // Any engine's output, within the products columns: a value the insert would refuse is cut or dropped here.
    const p = boundProduct(recognized);
    const match = matcher.match(p);
    const entry = match.status === 'matched' ? match.entry : null;
    const score = Math.max(0, Math.min(1, p.confidenceScore));
    const money = (v: number | null) => (v == null ? null : v.toFixed(2));
    return {
      id: newId('product'),
      organisationId: analysis.organisationId,
      analysisId: analysis.id,
      placeId: analysis.placeId ?? null,
      position,
      brand: p.brand ?? entry?.brand ?? null,
      description: p.description ?? entry?.name ?? null,
      units: Math.max(1, Math.round(p.units)),
      sku: p.sku ?? entry?.sku ?? null,
      upc: p.upc ?? entry?.upc ?? null,
      category: p.category ?? entry?.category ?? null,
      subcategory: p.subcategory ?? entry?.subcategory ?? null,
      price: money(p.price),
      discountedPrice: money(p.discountedPrice),
      currency: p.currency ?? (p.price != null ? (entry?.currency ?? null) : null),
      onSale: p.onSale,
      confidence: confidenceLevel(score),
      confidenceScore: score,
      shelfPosition: p.shelfPosition,
      shelfSection: p.shelfSection,
      fixtureType: p.fixtureType,
      sizeValue: p.sizeValue ?? entry?.sizeValue ?? null,
      sizeUnit: p.sizeUnit ?? entry?.sizeUnit ?? null,
      matchedInventorySku: match.entry?.sku ?? null,
      matchStatus: match.status,
      boxX: p.box?.x ?? null,
      boxY: p.box?.y ?? null,
      boxWidth: p.box?.width ?? null,
      boxHeight: p.box?.height ?? null,
    };
  }
}
