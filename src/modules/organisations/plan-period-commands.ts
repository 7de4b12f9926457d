import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  PLAN_PERIOD_WORKFLOW,
  planPeriodWorkflowId,
  type PlanPeriodWorkflow,
} from '../../temporal/contracts/plan-period.js';
import { SA } from '../../temporal/contracts/search-attributes.js';
import type { TaskQueues } from '../../temporal/contracts/task-queues.js';
import { Organisation } from './organisation.entity.js';
import type { OrganisationRepository } from './organisation.repository.js';

/**
 * Starts organisations' plan-period workflows. Creating an organisation needs no Temporal (the
 * admin CLI only writes the row): the worker's relay starts the workflow of every organisation
 * without one (`plan_workflow_ensured_at` null: new ones, and all of them at the upgrade), and again
 * for one whose period end is past by more than the grace (its workflow was terminated by hand or
 * failed): a start that finds the workflow running changes nothing.
 */
export class PlanPeriodCommands {
  constructor(
    private readonly em: EntityManager,
    private readonly client: Client,
    private readonly queues: TaskQueues,
  ) {}

  /** Starts the organisation's workflow; false if it was running already (nothing changed). */
  async start(organisationId: string): Promise<boolean> {
    let started = true;
    try {
      await this.client.workflow.start<PlanPeriodWorkflow>(PLAN_PERIOD_WORKFLOW, {
        workflowId: planPeriodWorkflowId(organisationId),
        taskQueue: this.queues.tasks,
        args: [{ organisationId }],
        typedSearchAttributes: [{ key: SA.organisationId, value: organisationId }],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      started = false;
    }
    await this.em
      .getRepository<Organisation, OrganisationRepository>(Organisation)
      .markPlanWorkflowEnsured(organisationId);
    return started;
  }

  /** The relay's pass over what `due` lists: how many workflows it started (not found running). */
  async sweep(graceMs: number): Promise<number> {
    let started = 0;
    for (const id of await this.due(graceMs)) if (await this.start(id)) started++;
    return started;
  }

  /**
   * Organisations created more than `graceMs` ago whose workflow was never started, and those whose
   * period ended more than `graceMs` ago and whose workflow was last looked at longer ago than that
   * (so a missing one is started again at most once per grace period). At most 200 a pass.
   */
  async due(graceMs: number): Promise<string[]> {
    const before = new Date(Date.now() - graceMs);
    return this.em.getRepository<Organisation, OrganisationRepository>(Organisation).planWorkflowsDue(before);
  }
}
