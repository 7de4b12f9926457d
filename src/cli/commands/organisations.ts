// The CLI's organisation and credit commands (main.ts runs them).
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { NotFoundError } from '../../lib/errors.js';
import { terminalSafeJson } from '../../lib/text.js';
import { PLAN_TIERS, type PlanTier } from '../../modules/organisations/organisation.entity.js';
import { UsageError } from '../args.js';
import type { CliCommand } from '../command.js';

export const organisationCommands: Record<string, CliCommand> = {
  'org:create': {
    usage: `  org:create     --name <name> [--plan ${PLAN_TIERS.join('|')}] [--credits <n>] [--monthly-credits <n>]`,
    async run({ args, services }) {
      const org = await services.organisations.create({
        name: args.label('name'),
        plan: args.oneOf<PlanTier>('plan', PLAN_TIERS, 'free'),
        credits: args.values.credits === undefined ? undefined : args.int('credits'),
        monthlyCredits: args.values['monthly-credits'] === undefined ? undefined : args.int('monthly-credits'),
      });
      const balance = await services.credits.balance(org.id);
      args.print(
        {
          id: org.id,
          name: org.name,
          plan: org.plan,
          credits: balance.remaining,
          monthlyCredits: org.monthlyCredits,
          periodEnd: org.periodEnd.toISOString(),
        },
        `created ${org.id} (${org.name}, ${org.plan}, ${balance.remaining} credits, ${org.monthlyCredits} a period from ${org.periodEnd.toISOString()})`,
      );
    },
  },
  'org:list': {
    usage: `  org:list`,
    async run({ args, services }) {
      const orgs = await services.organisations.list();
      const rows = orgs.map((o) => ({
        id: o.id,
        name: o.name,
        plan: o.plan,
        planCredits: o.planCredits,
        paygCredits: o.paygCredits,
        monthlyCredits: o.monthlyCredits,
        periodEnd: o.periodEnd.toISOString(),
      }));
      args.print(
        rows,
        rows.length
          ? rows.map(
              (r) =>
                `${r.id}  ${r.plan.padEnd(10)} ${String(r.planCredits + r.paygCredits).padStart(8)} credits  ${r.name}`,
            )
          : '(none)',
      );
    },
  },
  'org:set-plan': {
    usage: `  org:set-plan   --org <org_id> --plan <tier> [--monthly-credits <n>]\n                 limits at once, monthly credits from the next period; --monthly-credits: enterprise only`,
    async run({ args, services }) {
      const org = await services.organisations.setPlan(args.need('org'), args.oneOf<PlanTier>('plan', PLAN_TIERS), {
        monthlyCredits: args.values['monthly-credits'] === undefined ? undefined : args.int('monthly-credits'),
      });
      if (!org) throw new UsageError(`no organisation ${args.values.org}`);
      args.print(
        { id: org.id, plan: org.plan, monthlyCredits: org.monthlyCredits, periodEnd: org.periodEnd.toISOString() },
        `${org.id} is now on ${org.plan}; ${org.monthlyCredits} plan credits from the period starting ${org.periodEnd.toISOString()}`,
      );
    },
  },
  'org:set-limits': {
    usage: `  org:set-limits --org <org_id> [--analyses <n>] [--reads <n>] [--writes <n>] [--max-batch <n>]\n                 enterprise custom limits (requests per minute, images per batch)`,
    async run({ args, services }) {
      const input = {
        analyses: args.positive('analyses'),
        reads: args.positive('reads'),
        writes: args.positive('writes'),
        maxBatchSize: args.positive('max-batch'),
      };
      const org = args.need('org');
      if (Object.values(input).every((v) => v === undefined))
        throw new UsageError('give at least one of --analyses, --reads, --writes, --max-batch');
      const { custom, effective } = await services.organisations.setLimits(org, input);
      const r = effective.rateLimits;
      args.print(
        { id: org, customLimits: custom, effective: { rateLimits: r, maxBatchSize: effective.maxBatchSize } },
        `${org}: analyses ${r.analyses}/min, reads ${r.reads}/min, writes ${r.writes}/min, batches up to ${effective.maxBatchSize} images`,
      );
    },
  },
  'org:export': {
    usage: `  org:export     --org <org_id> [--out <file>]\n                 the organisation's records as JSON lines (never secrets), to stdout or a new file`,
    async run({ args, services, stdout }) {
      const org = args.need('org');
      const file = args.values.out === undefined ? undefined : args.need('out');
      if (!(await services.organisations.get(org))) throw new NotFoundError('organisation', org);
      // A file of personal data: readable by its owner only, never over an existing file.
      const out = file ? createWriteStream(file, { flags: 'wx', mode: 0o600 }) : stdout;
      const failed = new Promise<never>((_, reject) => out.once('error', reject));
      failed.catch(() => undefined);
      if (file)
        await Promise.race([once(out, 'open'), failed]).catch((err: Error) => {
          throw new UsageError(`--out: ${err.message}`);
        });
      const write = async (record: unknown) => {
        if (!out.write(`${terminalSafeJson(record)}\n`)) await Promise.race([once(out, 'drain'), failed]);
      };
      let counts: Record<string, number>;
      try {
        counts = await services.organisationExport.export(org, write);
      } finally {
        if (file) await new Promise<void>((r) => out.end(r));
      }
      if (file) {
        const total = Object.values(counts).reduce((a, b) => a + b, 0);
        args.print({ organisationId: org, file, counts }, `wrote ${total} records of ${org} to ${file}`);
      }
    },
  },
  'credits:grant': {
    usage: `  credits:grant  --org <org_id> --amount <n> [--pool plan|payg]`,
    async run({ args, services }) {
      const balance = await services.credits.grant(
        args.need('org'),
        args.int('amount'),
        args.oneOf('pool', ['plan', 'payg'] as const, 'payg'),
        'granted by admin CLI',
      );
      args.print(balance, `balance: ${balance.remaining} (plan ${balance.plan}, payg ${balance.payg})`);
    },
  },
  'credits:show': {
    usage: `  credits:show   --org <org_id>`,
    async run({ args, services }) {
      const balance = await services.credits.balance(args.need('org'));
      args.print(balance, `balance: ${balance.remaining} (plan ${balance.plan}, payg ${balance.payg})`);
    },
  },
};
