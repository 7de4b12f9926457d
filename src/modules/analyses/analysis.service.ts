import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  AppError,
  InsufficientCreditsError,
  NotFoundError,
  ValidationError,
  invalidReferences,
  unknownReference,
} from '../../lib/errors.js';
import { GroupCommit } from '../../lib/group-commit.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import type { AlertService } from '../alerts/alert.service.js';
import type { Balance, CreditService } from '../credits/credit.service.js';
import { IdempotencyLapsedError, type AnswerInCommit } from '../idempotency/idempotency.service.js';
import { Organisation } from '../organisations/organisation.entity.js';
import { limitsFor } from '../organisations/plans.js';
import type { PlaceService } from '../places/place.service.js';
import { Product } from '../products/product.entity.js';
import { Analysis } from './analysis.entity.js';
import { AnalysisImage } from './analysis-image.entity.js';
import { type AnalysisRepository, type AnalysisFilters } from './analysis.repository.js';
import type { BatchImageInput, CreateAnalysisInput } from './analysis.schemas.js';
import { Batch } from './batch.entity.js';
import { batchStatus } from './batch-status.js';
import { Task } from '../tasks/task.entity.js';
import { SealedString } from '../../db/sealed-string-type.js';
import { metrics } from '../../lib/metrics.js';

/** What a submission's answer and its workflow start read of the analysis: the entity, or the row as written. */
export type SubmittedAnalysis = Pick<
  Analysis,
  'id' | 'organisationId' | 'batchId' | 'imageUrl' | 'placeId' | 'taskId' | 'externalId' | 'createdAt' | 'retries'
>;
export type Submitted = { analysis: SubmittedAnalysis; callbackSecret?: string };

type Submission = {
  input: CreateAnalysisInput;
  secret?: string;
  answer?: AnswerInCommit<Submitted>;
};
export type SubmittedBatch = { batch: Batch; analyses: Submitted[] };

/** An analysis' columns from its image's input, the same on the entity path and the one-statement path. */
function imageFields(img: BatchImageInput) {
  return {
    imageUrl: img.imageUrl,
    placeId: img.placeId ?? null,
    taskId: img.taskId ?? null,
    externalId: img.externalId ?? null,
    metadata: img.metadata ?? null,
  };
}

/** The callback secret column's own type: the one-statement path seals it as the entity path does. */
const sealedColumn = new SealedString();

function callbackSecret(): string {
  return `cbsec_${randomBytes(24).toString('hex')}`;
}

/** What AnalysisService uses (src/services.ts builds it once per process). */
export type AnalysisServiceDeps = {
  em: EntityManager;
  credits: CreditService;
  places: PlaceService;
  alerts: AlertService;
  /** ANALYSIS_RUNS: recognition passes per analysis. */
  totalRuns: number;
  /** CREDITS_LOW_THRESHOLD: the balance under which the credits-low alert is raised. */
  creditsLowThreshold: number;
};

export class AnalysisService {
  readonly repo: AnalysisRepository;
  private readonly em: EntityManager;
  private readonly credits: CreditService;
  private readonly places: PlaceService;
  private readonly alerts: AlertService;
  private readonly totalRuns: number;
  private readonly creditsLowThreshold: number;
  /**
   * Single submissions of one organisation read in the same turn of the event loop, or arriving while
   * one of its commits is in flight, go together in the next commit (group-commit.ts): one row lock and
   * one WAL flush for the whole group instead of one each, which is what had concurrent submissions
   * queueing on the organisation's row. One per service, which src/services.ts builds once per process.
   */
  private readonly submissions = new GroupCommit<Submission, SubmittedAnalysis>((organisationId, items) =>
    this.commitSubmissions(organisationId, items),
  );

  constructor({ em, credits, places, alerts, totalRuns, creditsLowThreshold }: AnalysisServiceDeps) {
    this.em = em;
    this.credits = credits;
    this.places = places;
    this.alerts = alerts;
    this.totalRuns = totalRuns;
    this.creditsLowThreshold = creditsLowThreshold;
    this.repo = em.getRepository<Analysis, AnalysisRepository>(Analysis);
  }

  /** Every placeId and taskId named must belong to this organisation (422 on the exact field otherwise). */
  private async assertPlaces(
    organisationId: string,
    images: { placeId?: string; taskId?: string }[],
    fieldOf: (i: number, f: 'placeId' | 'taskId') => string,
  ) {
    const ids = (f: 'placeId' | 'taskId') => [...new Set(images.map((i) => i[f]).filter((p): p is string => !!p))];
    const places = ids('placeId');
    const tasks = ids('taskId');
    const foundPlaces = new Set(
      places.length
        ? (await this.places.repo.find({ organisationId, id: { $in: places } }, { fields: ['id'] })).map((p) => p.id)
        : [],
    );
    const foundTasks = new Set(
      tasks.length
        ? (await this.em.find(Task, { organisationId, id: { $in: tasks } }, { fields: ['id'] })).map((t) => t.id)
        : [],
    );
    const issues = images.flatMap((img, i) => [
      ...(img.placeId && !foundPlaces.has(img.placeId)
        ? [unknownReference(fieldOf(i, 'placeId'), 'place', img.placeId)]
        : []),
      ...(img.taskId && !foundTasks.has(img.taskId)
        ? [unknownReference(fieldOf(i, 'taskId'), 'task', img.taskId)]
        : []),
    ]);
    if (issues.length) throw invalidReferences(issues);
  }

  private newAnalysis(
    em: EntityManager,
    organisationId: string,
    img: BatchImageInput,
    extra: { batchId?: string; callbackUrl?: string; secret?: string; id?: string },
  ) {
    return em.create(Analysis, {
      id: extra.id ?? newId('analysis'),
      organisationId,
      batchId: extra.batchId ?? null,
      ...imageFields(img),
      callbackUrl: extra.callbackUrl ?? null,
      callbackSecret: extra.secret ?? null,
      totalRuns: this.totalRuns,
      totalValue: '0.00',
    });
  }

  /** One credits_low alert per organisation and plan period once the balance drops under the threshold. */
  private async warnIfLow(em: EntityManager, organisationId: string, balance: Balance) {
    if (balance.remaining >= this.creditsLowThreshold) return;
    const org = await em.findOneOrFail(Organisation, { id: organisationId });
    await this.alerts.raise(em, {
      organisationId,
      type: 'credits_low',
      severity: balance.remaining === 0 ? 'critical' : 'warning',
      title: 'Credits running low',
      message: `${balance.remaining} credit(s) left (plan ${balance.plan}, pay-as-you-go ${balance.payg}).`,
      sourceType: 'organisation',
      sourceId: organisationId,
      metadata: { remaining: balance.remaining, threshold: this.creditsLowThreshold },
      dedupeKey: `credits_low:${organisationId}:${org.periodEnd.toISOString()}`,
    });
  }

  /** Charges the credit and writes the analysis in one transaction (AnalysisCommands starts its workflow). */
  /** `answer`: the request's idempotent answer, committed with the submission (idempotency.service.ts). */
  async submit(
    organisationId: string,
    input: CreateAnalysisInput,
    answer?: AnswerInCommit<Submitted>,
  ): Promise<Submitted> {
    await this.assertPlaces(organisationId, [input], (_i, f) => f);
    const secret = input.callbackUrl ? callbackSecret() : undefined;
    const analysis = await this.submissions.submit(organisationId, { input, secret, answer });
    return { analysis, callbackSecret: secret };
  }

  /**
   * One transaction for a group of single submissions: a credit for each while they last (in
   * arrival order), the analyses of those that got one, their ledger rows, one commit. Each item is
   * answered on its own: its analysis, or 402 when the credits ran out before it.
   */
  async commitSubmissions(organisationId: string, items: Submission[]): Promise<(SubmittedAnalysis | Error)[]> {
    // Nothing to hold or store for an Idempotency-Key: the group is one statement, not five.
    if (items.every((it) => !it.answer)) {
      const done = await this.commitAtOnce(organisationId, items);
      if (done) return done;
    }
    return this.em.fork().transactional(async (em) => {
      const results: (Analysis | Error)[] = [];
      // A request whose Idempotency-Key claim lapsed is left out: another request owns its key.
      const live: number[] = [];
      for (const [i, it] of items.entries()) {
        if (it.answer && !(await it.answer.hold(em))) results[i] = new IdempotencyLapsedError();
        else live.push(i);
      }
      if (live.length === 0) return results;
      const ids = live.map(() => newId('analysis'));
      const { taken, balance } = await this.credits.consumeEach(em, organisationId, ids);
      const analyses = live.slice(0, taken).map((idx, k) =>
        this.newAnalysis(em, organisationId, items[idx]!.input, {
          callbackUrl: items[idx]!.input.callbackUrl,
          secret: items[idx]!.secret,
          id: ids[k],
        }),
      );
      if (taken > 0) await this.warnIfLow(em, organisationId, balance);
      await em.flush();
      for (const [k, idx] of live.entries()) {
        const analysis = analyses[k];
        results[idx] = analysis ?? new InsufficientCreditsError(1, balance.remaining);
        if (analysis) await items[idx]!.answer?.store(em, { analysis, callbackSecret: items[idx]!.secret });
      }
      return results;
    });
  }

  /**
   * commitSubmissions in one autocommitted statement (AnalysisRepository.chargeAndInsert): on this
   * path a submission's BEGIN, charge, two inserts and COMMIT were most of its database round trips
   * (decisions.md, "A group of submissions is one statement"). Returns null, having written nothing,
   * when the group would take the balance under the credits_low threshold: the transaction raises
   * that alert with the charge.
   */
  private async commitAtOnce(
    organisationId: string,
    items: Submission[],
  ): Promise<(SubmittedAnalysis | Error)[] | null> {
    const at = new Date();
    const rows = items.map(({ input, secret }) => ({
      id: newId('analysis'),
      creditEntryId: newId('creditEntry'),
      ...imageFields(input),
      callbackUrl: input.callbackUrl ?? null,
      sealedCallbackSecret: sealedColumn.convertToDatabaseValue(secret ?? null),
    }));
    const result = await this.repo.chargeAndInsert(organisationId, rows, {
      totalRuns: this.totalRuns,
      keepAtLeast: this.creditsLowThreshold,
      at,
    });
    if (!result) throw new Error(`organisation ${organisationId} does not exist`);
    if (!result.charged) return null;
    if (result.taken > 0) metrics.creditsCharged.inc(result.taken);
    const remaining = result.planBefore + result.paygBefore - result.taken;
    // What the callers render and start workflows from, as the rows were written (no entity: nothing
    // here is loaded or changed again, and hydrating one cost more than the rest of this method).
    return rows.map((r, i): SubmittedAnalysis | Error =>
      i < result.taken
        ? {
            id: r.id,
            organisationId,
            batchId: null,
            imageUrl: r.imageUrl,
            placeId: r.placeId,
            taskId: r.taskId,
            externalId: r.externalId,
            createdAt: at,
            retries: 0,
          }
        : new InsufficientCreditsError(1, remaining),
    );
  }

  async submitBatch(
    organisationId: string,
    images: BatchImageInput[],
    callbackUrl?: string,
    answer?: AnswerInCommit<SubmittedBatch>,
  ): Promise<SubmittedBatch> {
    const org = await this.em.findOneOrFail(Organisation, { id: organisationId });
    const { maxBatchSize } = limitsFor(org.plan, org.customLimits);
    if (images.length > maxBatchSize) {
      throw new ValidationError(
        `Invalid body: images: At most ${maxBatchSize} images per batch on the ${org.plan} plan.`,
        [
          {
            field: 'images',
            message: `At most ${maxBatchSize} images per batch on the ${org.plan} plan.`,
            code: 'too_big',
          },
        ],
      );
    }
    await this.assertPlaces(organisationId, images, (i, f) => `images[${i}].${f}`);
    const batchId = newId('batch');
    const secrets = images.map(() => (callbackUrl ? callbackSecret() : undefined));
    return this.em.transactional(async (em) => {
      if (answer && !(await answer.hold(em))) throw new IdempotencyLapsedError();
      const b = em.create(Batch, {
        id: batchId,
        organisationId,
        total: images.length,
        callbackUrl: callbackUrl ?? null,
      });
      const rows = images.map((img, i) =>
        this.newAnalysis(em, organisationId, img, { batchId, callbackUrl, secret: secrets[i] }),
      );
      await this.warnIfLow(
        em,
        organisationId,
        await this.credits.consume(
          em,
          organisationId,
          rows.map((r) => r.id),
        ),
      );
      await em.flush();
      const submitted = { batch: b, analyses: rows.map((analysis, i) => ({ analysis, callbackSecret: secrets[i] })) };
      await answer?.store(em, submitted);
      return submitted;
    });
  }

  batchMembers(batchId: string) {
    return this.repo.batchMembers(batchId);
  }

  list(organisationId: string, filters: AnalysisFilters, page: Page) {
    return this.repo.list(organisationId, filters, page);
  }

  async get(organisationId: string, id: string) {
    const analysis = await this.repo.findInOrg(organisationId, id);
    if (!analysis) throw new NotFoundError('analysis', id);
    // Only a processing analysis has a place in line; a finished one has products instead.
    const [products, ahead] = await Promise.all([
      this.em.find(Product, { analysisId: id }, { orderBy: { position: 'asc' } }),
      analysis.status === 'processing' ? this.repo.queueAhead(analysis) : null,
    ]);
    return { analysis, products, queue: ahead === null ? null : { ahead } };
  }

  /**
   * The preview of the analysis' photo (AnalysisImage), for the console: 404 for an analysis of
   * another organisation, and for one whose photo was not fetched (yet, or ever) or whose preview
   * has been removed (IMAGE_PREVIEW_DAYS).
   */
  async image(organisationId: string, id: string): Promise<AnalysisImage> {
    const image = await this.em.findOne(AnalysisImage, { analysisId: id, organisationId });
    if (image) return image;
    if (!(await this.repo.findInOrg(organisationId, id))) throw new NotFoundError('analysis', id);
    throw new AppError(
      'NOT_FOUND',
      `No photo for analysis '${id}': it is still being fetched, could not be fetched (see its error), or its preview was removed after its retention period.`,
    );
  }

  async getBatch(organisationId: string, batchId: string) {
    const batch = await this.em.findOne(Batch, { id: batchId, organisationId });
    if (!batch) throw new NotFoundError('batch', batchId);
    const analyses = await this.em.find(
      Analysis,
      { batchId, organisationId },
      { orderBy: { id: 'asc' }, fields: ['id', 'imageUrl', 'status', 'externalId'] },
    );
    const count = (s: string) => analyses.filter((a) => a.status === s).length;
    const processing = count('processing');
    const finished = analyses.length - processing;
    const status = batchStatus(analyses.length, finished);
    return { batch, analyses, processing, completed: count('completed'), failed: count('failed'), status } as const;
  }
}
