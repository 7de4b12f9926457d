// The CLI's operator commands: retries and redeliveries through Temporal, migrations, Temporal setup.
import { migrate } from '../../db/orm.js';
import { NotFoundError } from '../../lib/errors.js';
import { createTemporalClient } from '../../temporal/client.js';
import { ensureSearchAttributes } from '../../temporal/setup.js';
import { UsageError } from '../args.js';
import type { CliCommand } from '../command.js';

export const operationCommands: Record<string, CliCommand> = {
  'analyses:retry': {
    usage: `  analyses:retry --org <org_id> (--id <an_id> | --status failed --since <ISO time>) [--dry-run]\n                 re-run failed analyses as new workflow runs; a refunded credit is charged again`,
    async run({ args, commands }) {
      const org = args.need('org');
      if (args.values.id !== undefined && (args.values.status !== undefined || args.values.since !== undefined))
        throw new UsageError('give either --id or --status failed --since <time>, not both');
      let selection: { id: string } | { status: 'failed'; since: Date };
      if (args.values.id !== undefined) selection = { id: args.need('id') };
      else if (args.values.status === undefined && args.values.since === undefined)
        throw new UsageError('give --id <an_id> or --status failed --since <time>');
      else selection = { status: args.oneOf('status', ['failed'] as const), since: args.isoTime('since') };
      const report = await commands().analysisRetries.retry(org, selection, { dryRun: args.values['dry-run'] });
      const lines = report.analyses.map(
        (a) =>
          `${a.analysisId}  ${a.outcome.padEnd(11)} retry ${a.retry}${a.charge ? ', 1 credit' : ', no charge'}` +
          `${a.errorCode ? ` (was ${a.errorCode})` : ''}${a.started === false ? ', start left to the worker relay' : ''}` +
          `${a.reason ? `: ${a.reason}` : ''}`,
      );
      const verb = report.dryRun ? 'would retry' : 'retried';
      args.print(report, [
        ...lines,
        `${verb} ${report.analyses.filter((a) => a.outcome !== 'refused').length} analyses for ${report.creditsNeeded} credit(s); ${report.creditsRemaining} credit(s) ${report.dryRun ? 'available' : 'left'}`,
      ]);
      if (report.analyses.some((a) => a.outcome === 'refused')) return 1;
    },
  },
  'webhooks:redeliver-failed': {
    usage: `  webhooks:redeliver-failed --org <org_id> --since <ISO time> [--dry-run]\n                 send failed webhook and callback deliveries again, same delivery ids`,
    async run({ args, services, commands }) {
      const org = args.need('org');
      const since = args.isoTime('since');
      if (!(await services.organisations.get(org))) throw new NotFoundError('organisation', org);
      const dryRun = args.values['dry-run'];
      const items = await commands().webhooks.redeliverFailed(org, since, { dryRun });
      const count = items.filter((i) => i.outcome !== 'skipped').length;
      args.print({ dryRun, deliveries: items }, [
        ...items.map(
          (i) =>
            `${i.deliveryId}  ${i.outcome.padEnd(15)} ${i.eventType} to ${i.webhookId ?? 'callback'}, ${i.attempts} attempt(s)` +
            `${i.lastStatusCode ? `, last ${i.lastStatusCode}` : ''}${i.reason ? `: ${i.reason}` : ''}`,
        ),
        `${dryRun ? 'would redeliver' : 'redelivered'} ${count} of ${items.length} deliveries`,
      ]);
    },
  },
  migrate: {
    usage: `  migrate        apply pending database migrations`,
    async run({ args, orm }) {
      const applied = await migrate(orm);
      args.print({ applied }, applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
    },
  },
  'temporal:setup': {
    usage: `  temporal:setup register the search attributes on TEMPORAL_ADDRESS`,
    async run({ args, config }) {
      const temporal = createTemporalClient(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
      const added = await ensureSearchAttributes(temporal, config.TEMPORAL_NAMESPACE);
      await temporal.connection.close();
      args.print({ added }, added.length ? `registered ${added.join(', ')}` : 'search attributes already registered');
    },
  },
};
