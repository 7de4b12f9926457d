import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ALERT_SNOOZE_WORKFLOW, snoozeSignal, type AlertSnoozeWorkflow } from '../../temporal/contracts/alert.js';
import { SA } from '../../temporal/contracts/search-attributes.js';
import type { TaskQueues } from '../../temporal/contracts/task-queues.js';
import type { Alert } from './alert.entity.js';
import type { UpdateAlertInput } from './alert.schemas.js';
import type { AlertService } from './alert.service.js';

/** Alert changes that need a timer: a snooze (re)starts the alert's snooze workflow; un-snoozing stops it. */
export class AlertCommands {
  constructor(
    private readonly alerts: AlertService,
    private readonly client: Client,
    private readonly queues: TaskQueues,
  ) {}

  async update(organisationId: string, id: string, input: UpdateAlertInput, actor: string): Promise<Alert> {
    const wasSnoozed = (await this.alerts.get(organisationId, id)).status === 'snoozed';
    const alert = await this.alerts.update(organisationId, id, input, actor);
    if (alert.status === 'snoozed' && alert.snoozedUntil) {
      const until = alert.snoozedUntil.toISOString();
      await this.client.workflow.signalWithStart<AlertSnoozeWorkflow, [{ until: string | null }]>(
        ALERT_SNOOZE_WORKFLOW,
        {
          workflowId: alert.id,
          taskQueue: this.queues.tasks,
          args: [{ alertId: alert.id, until }],
          signal: snoozeSignal,
          signalArgs: [{ until }],
          typedSearchAttributes: [{ key: SA.organisationId, value: alert.organisationId }],
        },
      );
    } else if (wasSnoozed) {
      await this.client.workflow
        .getHandle(alert.id)
        .signal(snoozeSignal, { until: null })
        .catch((err) => {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        });
    }
    return alert;
  }
}
