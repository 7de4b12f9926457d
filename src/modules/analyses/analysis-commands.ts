import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { startAfterCommit, startOnce } from '../../temporal/start-once.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BatchedSlots } from '../../lib/batched-slots.js';
import { GroupCommit } from '../../lib/group-commit.js';
import type { Logger } from '../../lib/logger.js';
import {
  ANALYSIS_WORKFLOW,
  BATCH_TURNS_WORKFLOW,
  BATCH_WORKFLOW,
  analysisWorkflowIdentity,
  analysisWorkflowInput,
  batchTurnsWorkflowId,
  batchWaitingSignal,
  type AnalysisWorkflow,
  type BatchTurnsWorkflow,
  type BatchWorkflow,
} from '../../temporal/contracts/analysis.js';
import { SA } from '../../temporal/contracts/search-attributes.js';
import type { TaskQueues } from '../../temporal/contracts/task-queues.js';
import { Analysis } from './analysis.entity.js';
import { Batch } from './batch.entity.js';
import type { BatchImageInput, CreateAnalysisInput } from './analysis.schemas.js';
import type { AnalysisService, Submitted, SubmittedAnalysis, SubmittedBatch } from './analysis.service.js';
import type { AnswerInCommit } from '../idempotency/idempotency.service.js';
import { requestIds } from '../../lib/tracing.js';
import type { DispatchPriorities } from '../organisations/dispatch-priority.js';
import type { AnalysisRepository } from './analysis.repository.js';
import type { BatchRepository } from './batch.repository.js';

/**
 * Outbox marks, written together: nobody waits for one (see startAnalysis), so each group lingers
 * MARK_LINGER_MS for the starts finishing behind it. Without it, starts answered one at a time made
 * almost every mark an UPDATE of its own, about one statement per submission.
 */
const MARK_LINGER_MS = 100;

/** One flush of the outbox marks (AnalysisCommands.marks): one UPDATE for the group. */
async function flushMarks(items: { em: EntityManager; id: string }[]): Promise<void[]> {
  const ids = items.map((i) => i.id);
  await items[0]!.em.fork().getRepository<Analysis, AnalysisRepository>(Analysis).markWorkflowsStarted(ids);
  return items.map(() => undefined);
}

/**
 * Workflow starts the API answers before (see `startInBackground`). Bounded per process (one
 * AnalysisCommands: src/commands.ts): past MAX_STARTS_IN_FLIGHT a request waits for a slot, so a burst
 * is slowed to Temporal's pace instead of piling up starts in memory. The requests held there go on
 * together once the starts in flight have fallen to RESUME_STARTS_AT (BatchedSlots): their clients'
 * next submissions then arrive together and commit as one group, where going on one per start
 * finished made nearly every submission a commit and a WAL flush of its own; the starts still in
 * flight keep the server busy meanwhile (the raw ceiling keeps 20 in flight).
 */
const MAX_STARTS_IN_FLIGHT = 64;
const RESUME_STARTS_AT = 40;

/**
 * Submissions and their workflows: AnalysisService commits (row, credit, outbox), this starts the
 * analysis and batch workflows with the entity id as workflow id, then records that the workflow
 * exists. Starting twice is harmless (the second start finds the first), so the API's immediate
 * start and the relay's sweep can overlap without doing work twice.
 */
/** What AnalysisCommands uses (src/commands.ts builds it once per process). */
export type AnalysisCommandsDeps = {
  analyses: AnalysisService;
  em: EntityManager;
  /** The organisation's fairness key and weight for a start (dispatch-priority.ts). */
  priorities: DispatchPriorities;
  client: Client;
  queues: Pick<TaskQueues, 'analyses' | 'recognition'>;
  logger: Logger;
  /** RECOGNITION_HEARTBEAT_TIMEOUT_MS: passed to each workflow for its recognition passes. */
  heartbeatTimeoutMs: number;
};

export class AnalysisCommands {
  private readonly analyses: AnalysisService;
  private readonly em: EntityManager;
  private readonly priorities: DispatchPriorities;
  private readonly client: Client;
  private readonly queues: Pick<TaskQueues, 'analyses' | 'recognition'>;
  private readonly logger: Logger;
  private readonly heartbeatTimeoutMs: number;
  /** The outbox marks of this process's starts, written together (flushMarks); its one database, one key. */
  private readonly marks = new GroupCommit<{ em: EntityManager; id: string }, void>(
    (_key, items) => flushMarks(items),
    {
      lingerMs: MARK_LINGER_MS,
    },
  );
  /** Background starts under way (startInBackground), and their bound. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly slots = new BatchedSlots(MAX_STARTS_IN_FLIGHT, RESUME_STARTS_AT);

  constructor({ analyses, em, priorities, client, queues, logger, heartbeatTimeoutMs }: AnalysisCommandsDeps) {
    this.analyses = analyses;
    this.em = em;
    this.priorities = priorities;
    this.client = client;
    this.queues = queues;
    this.logger = logger;
    this.heartbeatTimeoutMs = heartbeatTimeoutMs;
  }

  /**
   * Charges and commits, then answers without waiting for the workflow start (decisions.md:
   * "Submissions answer at the commit").
   */
  async submit(
    organisationId: string,
    input: CreateAnalysisInput,
    answer?: AnswerInCommit<Submitted>,
  ): Promise<Submitted> {
    const submitted = await this.analyses.submit(organisationId, input, answer);
    await this.startInBackground(submitted.analysis);
    return submitted;
  }

  /** One transaction for the whole batch, then its one workflow (which starts a child per image). */
  async submitBatch(
    organisationId: string,
    images: BatchImageInput[],
    callbackUrl?: string,
    answer?: AnswerInCommit<SubmittedBatch>,
  ) {
    const submitted = await this.analyses.submitBatch(organisationId, images, callbackUrl, answer);
    await startAfterCommit(this.logger, 'workflow start', {}, () => this.startBatch(submitted.batch));
    return submitted;
  }

  async startAnalysis(a: SubmittedAnalysis): Promise<void> {
    const retry = a.retries ?? 0;
    const identity = analysisWorkflowIdentity(a, a.batchId ?? undefined);
    // The API request that submitted it, for operators going from a log line to the workflow.
    const requestId = requestIds.getStore();
    const memo = { ...identity.memo, ...(requestId ? { requestId } : {}), ...(retry > 0 ? { retry } : {}) };
    // Its organisation's lane: a batch member an operator retried stays in the batch lane.
    const priority = await this.priorities.of(a.organisationId, a.batchId ? 'batch' : 'single');
    const start = () =>
      this.client.workflow.start<AnalysisWorkflow>(ANALYSIS_WORKFLOW, {
        ...identity,
        memo,
        priority,
        taskQueue: this.queues.analyses,
        args: [analysisWorkflowInput(a, this.queues.recognition, this.heartbeatTimeoutMs)],
        // An operator's retry is a new run under the same id, once the failed run has closed.
        workflowIdReusePolicy: retry > 0 ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
      });
    if (retry > 0) await this.startRetry(a.id, retry, start);
    else await startOnce(start);
    // The outbox mark is not waited for: the row is durable and the workflow exists, so a mark lost
    // to a crash only makes the relay start it again, which finds it (startOnce). Marks made while one
    // is being written go together in the next UPDATE.
    this.marks
      .submit('marks', { em: this.em, id: a.id })
      .catch((err: unknown) => this.logger.warn({ err, analysisId: a.id }, 'outbox mark deferred to the relay'));
  }

  /**
   * Starts retry number `retry` of an analysis. A run already there is either this retry's (the
   * relay and the CLI both starting it: done) or the failed run still finishing its tail (event
   * dispatch, task signal): that one is waited out, then the retry starts.
   */
  private async startRetry(analysisId: string, retry: number, start: () => Promise<unknown>): Promise<void> {
    for (;;) {
      try {
        await start();
        return;
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      const handle = this.client.workflow.getHandle(analysisId);
      const running = await handle.describe();
      if (running.memo?.retry === retry) return;
      await handle.result().catch(() => undefined);
    }
  }

  async startBatch(b: Batch): Promise<void> {
    // The batch's lane, which its children (the analyses) and their recognition passes inherit: the
    // server merges a parent's priority into a child started without one (batch.workflow.ts is unchanged).
    const priority = await this.priorities.of(b.organisationId, 'batch');
    await startOnce(() =>
      this.client.workflow.start<BatchWorkflow>(BATCH_WORKFLOW, {
        workflowId: b.id,
        priority,
        taskQueue: this.queues.analyses,
        args: [
          { batchId: b.id, recognitionTaskQueue: this.queues.recognition, heartbeatTimeoutMs: this.heartbeatTimeoutMs },
        ],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        memo: { total: b.total },
        typedSearchAttributes: [
          { key: SA.organisationId, value: b.organisationId },
          { key: SA.batchId, value: b.id },
          { key: SA.status, value: 'processing' },
        ],
      }),
    );
    await this.em.getRepository<Batch, BatchRepository>(Batch).markWorkflowStarted(b.id);
  }

  /**
   * A batch's place in its organisation's line (D240): the line's workflow is signalled, and started
   * if there is none, in the organisation's batch lane (its workflow tasks queue with the batches').
   * The line keeps one place per batch, so a retried call changes nothing.
   */
  async queueBatchForTurn(organisationId: string, batchId: string): Promise<void> {
    const priority = await this.priorities.of(organisationId, 'batch');
    await this.client.workflow.signalWithStart<BatchTurnsWorkflow, [{ batchId: string }]>(BATCH_TURNS_WORKFLOW, {
      workflowId: batchTurnsWorkflowId(organisationId),
      taskQueue: this.queues.analyses,
      priority,
      args: [{ organisationId }],
      signal: batchWaitingSignal,
      signalArgs: [{ batchId }],
      typedSearchAttributes: [{ key: SA.organisationId, value: organisationId }],
    });
  }

  /**
   * For single submissions: the row and its credit are committed (the outbox), so the 202 does not
   * wait for Temporal. The start runs right after; if the process dies first, the relay starts it.
   * Returns once the start is under way (or, at the in-flight bound, once a slot is free).
   */
  async startInBackground(a: SubmittedAnalysis): Promise<void> {
    await this.slots.acquire();
    const start: Promise<boolean> = startAfterCommit(this.logger, 'workflow start', {}, () =>
      this.startAnalysis(a),
    ).finally(() => {
      this.inFlight.delete(start);
      this.slots.release();
    });
    this.inFlight.add(start);
  }

  /** Resolves when every background start begun so far has finished (the API waits for it on shutdown). */
  async backgroundStartsSettled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * The relay: starts workflows for rows committed but never confirmed started, e.g. because the
   * API process died between its commit and its start call. Returns how many it started.
   */
  async sweep(graceMs: number, limit = 100): Promise<number> {
    const cutoff = new Date(Date.now() - graceMs);
    const analyses = await this.em.find(
      Analysis,
      // A batch's members are its workflow's children, except those an operator retried (each then a workflow of its own).
      { workflowStartedAt: null, $or: [{ batchId: null }, { retries: { $gt: 0 } }], createdAt: { $lt: cutoff } },
      { orderBy: { id: 'asc' }, limit },
    );
    const batches = await this.em.find(
      Batch,
      { workflowStartedAt: null, createdAt: { $lt: cutoff } },
      { orderBy: { id: 'asc' }, limit },
    );
    for (const a of analyses) await this.startAnalysis(a);
    for (const b of batches) await this.startBatch(b);
    return analyses.length + batches.length;
  }
}
