import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  ORGANISATION_BATCHES_AT_ONCE,
  batchDoneSignal,
  batchTurnSignal,
  batchWaitingSignal,
  type BatchTurnsInput,
  type BatchTurnsWorkflow,
} from '../src/temporal/contracts/analysis.js';

/** A line with nobody in it or waiting ends after this; the next batch to ask starts a new one. */
const IDLE = '1 minute';
/**
 * While a batch waits and every turn is held, this often the line tells each holder its turn again: a
 * signal to a closed workflow fails, so a batch terminated while holding a turn (it never said it was
 * done) gives it up here instead of holding the line for ever.
 */
const HOLDERS_CHECK = '5 minutes';
/** Well under Temporal's 50,000 events: a line moving thousands of batches starts afresh before it. */
const MAX_HISTORY = 10_000;

/**
 * One organisation's line of batches (workflow id `batch-turns-<organisation>`, D240): at most
 * ORGANISATION_BATCHES_AT_ONCE of them run their window of children at once, the rest wait for their
 * turn in the order they asked. Its state is its history: a worker killed at any point loses no place
 * in line and grants no turn twice (a repeated grant, after a reset, is one the batch already had).
 */
export async function batchTurnsWorkflow(input: BatchTurnsInput): Promise<void> {
  const waiting: string[] = [...(input.waiting ?? [])];
  const running = new Set<string>(input.running ?? []);
  /** Holders that asked again (a batch reset by an operator, or one whose wait ran long): told again. */
  const askedAgain = new Set<string>();

  setHandler(batchWaitingSignal, ({ batchId }) => {
    if (running.has(batchId)) askedAgain.add(batchId);
    else if (!waiting.includes(batchId)) waiting.push(batchId);
  });
  setHandler(batchDoneSignal, ({ batchId }) => {
    running.delete(batchId);
    askedAgain.delete(batchId);
    const i = waiting.indexOf(batchId);
    if (i >= 0) waiting.splice(i, 1);
  });

  /** Tells a batch its turn has come; false if it is closed (nothing to tell). */
  const tell = (batchId: string) =>
    getExternalWorkflowHandle(batchId)
      .signal(batchTurnSignal)
      .then(
        () => true,
        (err: unknown) => {
          log.info('batch gone from the line', { organisationId: input.organisationId, batchId, error: String(err) });
          return false;
        },
      );
  const canGrant = () => running.size < ORGANISATION_BATCHES_AT_ONCE && waiting.length > 0;

  for (;;) {
    while (canGrant()) {
      const batchId = waiting.shift()!;
      running.add(batchId);
      if (!(await tell(batchId))) running.delete(batchId);
    }
    for (const batchId of [...askedAgain]) {
      askedAgain.delete(batchId);
      if (running.has(batchId) && !(await tell(batchId))) running.delete(batchId);
    }
    if (canGrant() || askedAgain.size > 0) continue;

    if (running.size === 0 && waiting.length === 0) {
      // Nobody in line: wait a little for the next batch, then end (a batch asking later starts a new line).
      if (await condition(() => waiting.length > 0 || running.size > 0, IDLE)) continue;
      await condition(allHandlersFinished);
      if (waiting.length === 0 && running.size === 0) return;
      continue;
    }
    if (workflowInfo().historyLength > MAX_HISTORY || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<BatchTurnsWorkflow>({
        organisationId: input.organisationId,
        waiting,
        running: [...running],
      });
    }
    // Something to do, or HOLDERS_CHECK gone by with turns held: then, if a batch is waiting, see
    // that every holder is still open.
    const moved = await condition(
      () => canGrant() || askedAgain.size > 0 || (running.size === 0 && waiting.length === 0),
      HOLDERS_CHECK,
    );
    if (!moved && waiting.length > 0) {
      for (const batchId of [...running]) if (!(await tell(batchId))) running.delete(batchId);
    }
  }
}

batchTurnsWorkflow satisfies BatchTurnsWorkflow;
