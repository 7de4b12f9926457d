// The analysis and batch workflows' contract: what callers start and query, what the workflows may
// call. Workflows import this (and nothing else of the app); activities implement it; clients start
// by the type name with these types. The types are the contract's own (services import them from
// here), so nothing here pulls in a service, a repository, a schema or an entity (eslint.config.js).
import type { SearchAttributePair } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { imageHostOf } from '../../lib/image-host.js';
import { SA } from './search-attributes.js';
import type { BatchStatus } from '../../modules/analyses/batch-status.js';

export const ANALYSIS_WORKFLOW = 'analysisWorkflow';

export const BATCH_WORKFLOW = 'batchWorkflow';

/**
 * How many of a batch's analyses are in flight at once (started, not yet finished; D214). A constant
 * of the workflow code, not config: replay must make the same starts in the same order, and every batch
 * recorded since the `batch-window` patch was recorded with this value. Changing it is a change to the
 * workflow's steps (a new patch).
 */
export const BATCH_WINDOW = 8;

/**
 * How many of one organisation's batches run their window at once (D240): the others wait in line, in
 * the order they asked, so the organisation has at most this many times BATCH_WINDOW analyses in flight
 * across all its batches, whatever it sends. A constant of the workflow code, for the reason BATCH_WINDOW
 * is: the line's grants are replayed from history.
 */
export const ORGANISATION_BATCHES_AT_ONCE = 2;

export const BATCH_TURNS_WORKFLOW = 'batchTurnsWorkflow';

/** The one line per organisation (D240): its workflow id. */
export const batchTurnsWorkflowId = (organisationId: string) => `batch-turns-${organisationId}`;

/**
 * The line's state, carried across continue-as-new: the batches waiting, in order, and those holding a turn.
 * A new line starts with both empty.
 */
export type BatchTurnsInput = { organisationId: string; waiting?: string[]; running?: string[] };
export type BatchTurnsWorkflow = (input: BatchTurnsInput) => Promise<void>;

/** A batch asks its organisation's line for a turn (again, if it has waited long: idempotent). */
export const batchWaitingSignal = defineSignal<[{ batchId: string }]>('batchWaiting');
/** The line tells a batch its turn has come (again, to see that a batch holding one is still open). */
export const batchTurnSignal = defineSignal('batchTurn');
/** A batch whose children have all closed gives its turn back. */
export const batchDoneSignal = defineSignal<[{ batchId: string }]>('batchDone');

export type AnalysisWorkflowInput = {
  analysisId: string;
  recognitionTaskQueue: string;
  taskId?: string | null;
  /** RECOGNITION_HEARTBEAT_TIMEOUT_MS; absent in workflows started before it existed (20 s). */
  heartbeatTimeoutMs?: number;
};
export type AnalysisWorkflowResult = {
  analysisId: string;
  status: 'completed' | 'failed';
  productCount: number;
  errorCode: string | null;
};
export type AnalysisWorkflow = (input: AnalysisWorkflowInput) => Promise<AnalysisWorkflowResult>;

export type AnalysisProgress = {
  stage: 'fetching' | 'recognizing' | 'finalizing' | 'done';
  passesDone: number;
  passesFailed: number;
};
export const analysisProgressQuery = defineQuery<AnalysisProgress>('analysisProgress');

export type BatchWorkflowInput = { batchId: string; recognitionTaskQueue: string; heartbeatTimeoutMs?: number };
export type BatchProgress = { status: BatchStatus; total: number; completed: number; failed: number };
export type BatchWorkflow = (input: BatchWorkflowInput) => Promise<BatchProgress>;
export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');

export type { BatchStatus };

/** The fetch step's answer: the passes to run on the stored image, or that the analysis is final already. */
export type PreparedImage = { totalRuns: number; width: number; height: number } | { alreadyFinal: true };

/** How an analysis ended, as finalizing or failing it answers (again on a retry). */
export type AnalysisOutcome = {
  analysisId: string;
  status: 'completed' | 'failed';
  productCount: number;
  errorCode: string | null;
  /** Events written by this call or an earlier attempt of it. */
  eventIds: string[];
  taskId: string | null;
};

/** What a batch workflow needs of each of its analyses to start it. */
export type BatchMember = {
  id: string;
  organisationId: string;
  imageUrl: string;
  externalId: string | null;
  placeId: string | null;
  taskId: string | null;
};

type AnalysisRef = {
  id: string;
  organisationId: string;
  imageUrl: string;
  externalId?: string | null;
  placeId?: string | null;
  taskId?: string | null;
};

/**
 * What every analysis workflow is started with besides its input, by the API or as a batch's child:
 * workflow id = analysis id, the image host in the memo (never the URL: signed URLs carry tokens), and
 * the search attributes operators filter on.
 */
export function analysisWorkflowIdentity(
  a: AnalysisRef,
  batchId?: string,
): { workflowId: string; memo: { imageHost: string }; typedSearchAttributes: SearchAttributePair[] } {
  return {
    workflowId: a.id,
    memo: { imageHost: imageHostOf(a.imageUrl) },
    typedSearchAttributes: [
      { key: SA.organisationId, value: a.organisationId },
      { key: SA.analysisId, value: a.id },
      ...(batchId ? [{ key: SA.batchId, value: batchId }] : []),
      { key: SA.status, value: 'processing' },
      ...(a.externalId ? [{ key: SA.externalId, value: a.externalId }] : []),
      ...(a.placeId ? [{ key: SA.placeId, value: a.placeId }] : []),
      ...(a.taskId ? [{ key: SA.taskId, value: a.taskId }] : []),
    ],
  };
}
export type FailedPass = { runIndex: number; message: string };

export interface AnalysisActivities {
  /**
   * Fetches and stores the image once; `alreadyFinal` when a retry finds the analysis finished.
   * `previewLater`: the console's preview is made by storePreview after the result, not here.
   */
  fetchImage(input: { analysisId: string; previewLater?: boolean }): Promise<PreparedImage>;
  /** One recognition pass (on the recognition task queue), heartbeating while it runs. */
  recognizeImage(input: { analysisId: string; runIndex: number }): Promise<{ productCount: number }>;
  /** `keepImage`: the stored photo is left for storePreview, which deletes it. */
  finalizeAnalysis(input: {
    analysisId: string;
    failedPasses: FailedPass[];
    keepImage?: boolean;
  }): Promise<AnalysisOutcome>;
  failAnalysis(input: {
    analysisId: string;
    code: string;
    message: string;
    keepImage?: boolean;
  }): Promise<AnalysisOutcome>;
  /** The console's preview made from the stored photo, which is then deleted; nothing if there is none. */
  storePreview(input: { analysisId: string }): Promise<void>;
  listBatchAnalyses(input: { batchId: string }): Promise<BatchMember[]>;
  /**
   * Puts the batch in its organisation's line (D240): signals the line's workflow, starting it if there is
   * none. Asking twice is harmless (the line keeps one place per batch).
   */
  queueBatchForTurn(input: { organisationId: string; batchId: string }): Promise<void>;
}

/**
 * An analysis workflow's input as the API (and its relay) start it, and a batch its children.
 * `heartbeatTimeoutMs` is absent for a batch started before it existed (the child then takes 20 s).
 */
export function analysisWorkflowInput(
  a: AnalysisRef,
  recognitionTaskQueue: string,
  heartbeatTimeoutMs: number | undefined,
): AnalysisWorkflowInput {
  return { analysisId: a.id, recognitionTaskQueue, taskId: a.taskId ?? null, heartbeatTimeoutMs };
}
