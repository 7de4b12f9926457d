// Admin CLI: `npm run cli -- <command> [options] [--json]`. See README "Admin CLI".
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { configOrExit } from '../config.js';
import { initORM, migrate } from '../db/orm.js';
import { AppError, NotFoundError } from '../lib/errors.js';
import { createLogger } from '../lib/logger.js';
import { hasControlCharacter, terminalSafe, terminalSafeJson } from '../lib/text.js';
import { API_KEY_ROLES, type ApiKeyRole } from '../modules/api-keys/api-key.entity.js';
import { PLAN_TIERS, type PlanTier } from '../modules/organisations/organisation.entity.js';
import { createCommands } from '../commands.js';
import { memberLinkUrl } from '../modules/sessions/session.service.js';
import type { MemberLinkKind } from '../modules/sessions/session.entity.js';
import { createServices } from '../services.js';
import { createTemporalClient } from '../temporal/client.js';
import { ensureSearchAttributes } from '../temporal/setup.js';

const USAGE = `Usage: npm run cli -- <command> [options] [--json]

  org:create     --name <name> [--plan ${PLAN_TIERS.join('|')}] [--credits <n>] [--monthly-credits <n>]
  org:list
  org:set-plan   --org <org_id> --plan <tier> [--monthly-credits <n>]
                 limits at once, monthly credits from the next period; --monthly-credits: enterprise only
  org:set-limits --org <org_id> [--analyses <n>] [--reads <n>] [--writes <n>] [--max-batch <n>]
                 enterprise custom limits (requests per minute, images per batch)
  org:export     --org <org_id> [--out <file>]
                 the organisation's records as JSON lines (never secrets), to stdout or a new file
  credits:grant  --org <org_id> --amount <n> [--pool plan|payg]
  credits:show   --org <org_id>
  key:create     --org <org_id> --role ${API_KEY_ROLES.join('|')} [--name <label>]
  key:list       --org <org_id>
  key:revoke     --org <org_id> --key <key_id>
  member:add     --org <org_id> --email <e-mail> --name <name> [--role owner|member|tasker]
  member:login-link --org <org_id> [--email <e-mail>]
                 a one-time link to the console where the member (default: the first owner) sets a
                 password and is signed in; earlier links of theirs stop working (with SMTP_URL
                 also mailed to the member)
  invite:list    --org <org_id>
  invite:link    --org <org_id> --invitation <mbi_id>
                 a new link for a pending invitation, where the invited person sets a password and joins
                 (with SMTP_URL also mailed to them)
  invite:accept  --org <org_id> --invitation <mbi_id> --name <name>
  analyses:retry --org <org_id> (--id <an_id> | --status failed --since <ISO time>) [--dry-run]
                 re-run failed analyses as new workflow runs; a refunded credit is charged again
  webhooks:redeliver-failed --org <org_id> --since <ISO time> [--dry-run]
                 send failed webhook and callback deliveries again, same delivery ids
  migrate        apply pending database migrations
  temporal:setup register the search attributes on TEMPORAL_ADDRESS

Bad usage or a refused request exits with code 2.`;

const options = {
  name: { type: 'string' },
  plan: { type: 'string' },
  credits: { type: 'string' },
  'monthly-credits': { type: 'string' },
  org: { type: 'string' },
  amount: { type: 'string' },
  pool: { type: 'string' },
  role: { type: 'string' },
  key: { type: 'string' },
  email: { type: 'string' },
  invitation: { type: 'string' },
  analyses: { type: 'string' },
  reads: { type: 'string' },
  writes: { type: 'string' },
  'max-batch': { type: 'string' },
  id: { type: 'string' },
  status: { type: 'string' },
  since: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  out: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Bad usage (an unknown option, an option without its value) is the usage and exit code 2, never a stack trace. */
function parse() {
  try {
    return parseArgs({ allowPositionals: true, options });
  } catch (err) {
    if (!(err instanceof TypeError && String((err as { code?: string }).code).startsWith('ERR_PARSE_ARGS'))) throw err;
    console.error(`error: ${err.message.split('\n')[0]}\n\n${USAGE}`);
    process.exit(2);
  }
}
const { positionals, values } = parse();

class UsageError extends Error {}

function need(name: keyof typeof values): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}
/**
 * A name or e-mail address to store: one line, as the API's names must be (issue 36). Listings print
 * them one row each, where a line break forged a row and an escape sequence reached the terminal.
 */
function oneLine(name: keyof typeof values, value: string): string {
  if (hasControlCharacter(value))
    throw new UsageError(`--${name} must not contain control characters (line breaks, tabs, escape sequences)`);
  return value;
}
const label = (name: keyof typeof values): string => oneLine(name, need(name));
function int(name: keyof typeof values): number {
  const n = Number(need(name));
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return n;
}
/** An optional whole number of at least 1 (a limit of 0 would lock the organisation out: revoke keys for that). */
function positive(name: keyof typeof values): number | undefined {
  if (values[name] === undefined) return undefined;
  const v = need(name);
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`--${name} must be a whole number of at least 1`);
  return n;
}
/** An ISO 8601 time with a date and a time of day (and a zone, else UTC). */
function isoTime(name: keyof typeof values): Date {
  const v = need(name);
  const d = new Date(v);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v) || Number.isNaN(d.getTime()))
    throw new UsageError(`--${name} must be an ISO 8601 time, e.g. 2026-11-01T00:00:00Z`);
  return d;
}
function oneOf<T extends string>(name: keyof typeof values, allowed: readonly T[], fallback?: T): T {
  const v = (values[name] as string | undefined) ?? fallback;
  if (!v || !allowed.includes(v as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return v as T;
}

/**
 * The command's result on stdout: JSON, or the human form's lines. Stored text reaches an operator's
 * terminal here (names, e-mail addresses, reasons), including rows stored before control characters
 * were refused: each line is escaped whole (terminalSafe), so a line break in a name stays on its
 * row and no escape sequence reaches the terminal. Our own lines hold no control character.
 */
function print(result: unknown, human: string | string[]): void {
  const lines = typeof human === 'string' ? [human] : human;
  console.log(values.json ? terminalSafeJson(result, 2) : lines.map(terminalSafe).join('\n'));
}

const command = positionals[0];
if (!command || values.help) {
  console.log(USAGE);
  process.exit(command ? 0 : 1);
}

const cfg = configOrExit();
const orm = await initORM(cfg.DATABASE_URL);
let temporal: ReturnType<typeof createTemporalClient> | undefined;
try {
  // Logs go to stderr: stdout carries the command's output (--json, an export's lines).
  const logger = createLogger(cfg.LOG_LEVEL, 'cli', pino.destination({ fd: 2, sync: true }));
  const s = createServices(orm.em.fork(), { config: cfg, logger });
  /** Where the console is reached, for the links the CLI prints. */
  const consoleOrigin = () => (cfg.PUBLIC_URL ? new URL(cfg.PUBLIC_URL).origin : `http://localhost:${cfg.PORT}`);
  /**
   * With SMTP_URL the link is mailed to its person as well; the operator still gets it printed (they
   * hold the database and its keys anyway, and a first owner must not be stranded by a mail that
   * never arrives).
   */
  const mailed = async (kind: MemberLinkKind, org: string, to: string, url: string, expiresAt: Date) => {
    if (!cfg.SMTP_URL) return {};
    const { mailedTo, mailError } = await s.sessions.handOver(kind, org, to, url, expiresAt);
    return { mailedTo, mailError };
  };
  const mailLines = (m: { mailedTo?: string | null; mailError?: string | null }) =>
    m.mailedTo ? [`mailed to ${m.mailedTo}`] : m.mailError ? [`not mailed: ${m.mailError}`] : [];
  /** The commands that start workflows, on a Temporal client made only for them. */
  const commands = () => {
    temporal ??= createTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE);
    return createCommands(s, { client: temporal.client, config: cfg, logger });
  };
  switch (command) {
    case 'migrate': {
      const applied = await migrate(orm);
      print({ applied }, applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
      break;
    }
    case 'org:create': {
      const org = await s.organisations.create({
        name: label('name'),
        plan: oneOf<PlanTier>('plan', PLAN_TIERS, 'free'),
        credits: values.credits === undefined ? undefined : int('credits'),
        monthlyCredits: values['monthly-credits'] === undefined ? undefined : int('monthly-credits'),
      });
      const balance = await s.credits.balance(org.id);
      print(
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
      break;
    }
    case 'org:list': {
      const orgs = await s.organisations.list();
      const rows = orgs.map((o) => ({
        id: o.id,
        name: o.name,
        plan: o.plan,
        planCredits: o.planCredits,
        paygCredits: o.paygCredits,
        monthlyCredits: o.monthlyCredits,
        periodEnd: o.periodEnd.toISOString(),
      }));
      print(
        rows,
        rows.length
          ? rows.map(
              (r) =>
                `${r.id}  ${r.plan.padEnd(10)} ${String(r.planCredits + r.paygCredits).padStart(8)} credits  ${r.name}`,
            )
          : '(none)',
      );
      break;
    }
    case 'org:set-plan': {
      const org = await s.organisations.setPlan(need('org'), oneOf<PlanTier>('plan', PLAN_TIERS), {
        monthlyCredits: values['monthly-credits'] === undefined ? undefined : int('monthly-credits'),
      });
      if (!org) throw new UsageError(`no organisation ${values.org}`);
      print(
        { id: org.id, plan: org.plan, monthlyCredits: org.monthlyCredits, periodEnd: org.periodEnd.toISOString() },
        `${org.id} is now on ${org.plan}; ${org.monthlyCredits} plan credits from the period starting ${org.periodEnd.toISOString()}`,
      );
      break;
    }
    case 'org:export': {
      const org = need('org');
      const file = values.out === undefined ? undefined : need('out');
      if (!(await s.organisations.get(org))) throw new NotFoundError('organisation', org);
      // A file of personal data: readable by its owner only, never over an existing file.
      const out = file ? createWriteStream(file, { flags: 'wx', mode: 0o600 }) : process.stdout;
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
        counts = await s.organisationExport.export(org, write);
      } finally {
        if (file) await new Promise<void>((r) => out.end(r));
      }
      if (file) {
        const total = Object.values(counts).reduce((a, b) => a + b, 0);
        print({ organisationId: org, file, counts }, `wrote ${total} records of ${org} to ${file}`);
      }
      break;
    }
    case 'org:set-limits': {
      const input = {
        analyses: positive('analyses'),
        reads: positive('reads'),
        writes: positive('writes'),
        maxBatchSize: positive('max-batch'),
      };
      const org = need('org');
      if (Object.values(input).every((v) => v === undefined))
        throw new UsageError('give at least one of --analyses, --reads, --writes, --max-batch');
      const { custom, effective } = await s.organisations.setLimits(org, input);
      const r = effective.rateLimits;
      print(
        { id: org, customLimits: custom, effective: { rateLimits: r, maxBatchSize: effective.maxBatchSize } },
        `${org}: analyses ${r.analyses}/min, reads ${r.reads}/min, writes ${r.writes}/min, batches up to ${effective.maxBatchSize} images`,
      );
      break;
    }
    case 'analyses:retry': {
      const org = need('org');
      if (values.id !== undefined && (values.status !== undefined || values.since !== undefined))
        throw new UsageError('give either --id or --status failed --since <time>, not both');
      let selection: { id: string } | { status: 'failed'; since: Date };
      if (values.id !== undefined) selection = { id: need('id') };
      else if (values.status === undefined && values.since === undefined)
        throw new UsageError('give --id <an_id> or --status failed --since <time>');
      else selection = { status: oneOf('status', ['failed'] as const), since: isoTime('since') };
      const report = await commands().analysisRetries.retry(org, selection, { dryRun: values['dry-run'] });
      const lines = report.analyses.map(
        (a) =>
          `${a.analysisId}  ${a.outcome.padEnd(11)} retry ${a.retry}${a.charge ? ', 1 credit' : ', no charge'}` +
          `${a.errorCode ? ` (was ${a.errorCode})` : ''}${a.started === false ? ', start left to the worker relay' : ''}` +
          `${a.reason ? `: ${a.reason}` : ''}`,
      );
      const verb = report.dryRun ? 'would retry' : 'retried';
      print(report, [
        ...lines,
        `${verb} ${report.analyses.filter((a) => a.outcome !== 'refused').length} analyses for ${report.creditsNeeded} credit(s); ${report.creditsRemaining} credit(s) ${report.dryRun ? 'available' : 'left'}`,
      ]);
      if (report.analyses.some((a) => a.outcome === 'refused')) process.exitCode = 1;
      break;
    }
    case 'webhooks:redeliver-failed': {
      const org = need('org');
      const since = isoTime('since');
      if (!(await s.organisations.get(org))) throw new NotFoundError('organisation', org);
      const dryRun = values['dry-run'];
      const items = await commands().webhooks.redeliverFailed(org, since, { dryRun });
      const count = items.filter((i) => i.outcome !== 'skipped').length;
      print({ dryRun, deliveries: items }, [
        ...items.map(
          (i) =>
            `${i.deliveryId}  ${i.outcome.padEnd(15)} ${i.eventType} to ${i.webhookId ?? 'callback'}, ${i.attempts} attempt(s)` +
            `${i.lastStatusCode ? `, last ${i.lastStatusCode}` : ''}${i.reason ? `: ${i.reason}` : ''}`,
        ),
        `${dryRun ? 'would redeliver' : 'redelivered'} ${count} of ${items.length} deliveries`,
      ]);
      break;
    }
    case 'credits:grant': {
      const balance = await s.credits.grant(
        need('org'),
        int('amount'),
        oneOf('pool', ['plan', 'payg'] as const, 'payg'),
        'granted by admin CLI',
      );
      print(balance, `balance: ${balance.remaining} (plan ${balance.plan}, payg ${balance.payg})`);
      break;
    }
    case 'credits:show': {
      const balance = await s.credits.balance(need('org'));
      print(balance, `balance: ${balance.remaining} (plan ${balance.plan}, payg ${balance.payg})`);
      break;
    }
    case 'key:create': {
      const org = await s.organisations.get(need('org'));
      if (!org) throw new UsageError(`no organisation ${values.org}`);
      const role = oneOf<ApiKeyRole>('role', API_KEY_ROLES);
      const name = values.name === undefined ? undefined : oneLine('name', values.name);
      const { key, secret } = await s.apiKeys.create(org.id, role, name);
      print({ id: key.id, role: key.role, name: key.name, key: secret }, [
        `${key.id} (${key.role})`,
        secret,
        'Store this key now: it is shown only once.',
      ]);
      break;
    }
    case 'key:list': {
      const keys = await s.apiKeys.all(need('org'));
      const rows = keys.map((k) => ({
        id: k.id,
        name: k.name,
        role: k.role,
        prefix: k.keyPrefix,
        lastUsedAt: k.lastUsedAt,
        revokedAt: k.revokedAt,
        createdAt: k.createdAt,
      }));
      print(
        rows,
        rows.length
          ? rows.map(
              (r) =>
                `${r.id}  ${r.role.padEnd(6)} ${r.prefix}…  ${r.revokedAt ? 'revoked' : 'active '}  ${r.name ?? ''}`,
            )
          : '(none)',
      );
      break;
    }
    case 'key:revoke': {
      const key = await s.apiKeys.revoke(need('org'), need('key'));
      print({ id: key.id, revokedAt: key.revokedAt }, `${key.id} revoked`);
      break;
    }
    case 'member:add': {
      const user = await s.members.add(need('org'), {
        name: label('name'),
        email: label('email'),
        role: oneOf('role', ['owner', 'member', 'tasker'] as const, 'member'),
      });
      print({ userId: user.id, email: user.email, role: user.role }, `${user.id} ${user.email} (${user.role})`);
      break;
    }
    case 'member:login-link': {
      const org = need('org');
      const email = values.email === undefined ? undefined : label('email');
      const user = await s.sessions.memberForLink(org, email);
      const { token, link } = await s.sessions.createSignInLink(org, user.id);
      const url = memberLinkUrl(consoleOrigin(), token);
      const mail = await mailed('sign_in', org, user.email, url, link.expiresAt);
      print({ userId: user.id, email: user.email, link: url, expiresAt: link.expiresAt.toISOString(), ...mail }, [
        `sign-in link for ${user.email} (${user.role}), good once until ${link.expiresAt.toISOString()}:`,
        url,
        ...mailLines(mail),
      ]);
      break;
    }
    case 'invite:link': {
      const { token, link, invitation } = await s.sessions.createInvitationLink(need('org'), need('invitation'));
      const url = memberLinkUrl(consoleOrigin(), token);
      const mail = await mailed('invitation', invitation.organisationId, invitation.email, url, link.expiresAt);
      print(
        {
          invitationId: invitation.id,
          email: invitation.email,
          link: url,
          expiresAt: link.expiresAt.toISOString(),
          ...mail,
        },
        [
          `invitation link for ${invitation.email}, good once until ${link.expiresAt.toISOString()}:`,
          url,
          ...mailLines(mail),
        ],
      );
      break;
    }
    case 'invite:list': {
      const rows = (await s.members.pendingInvitations(need('org'))).map((i) => ({
        invitationId: i.id,
        email: i.email,
        role: i.role,
        createdAt: i.createdAt,
      }));
      print(rows, rows.length ? rows.map((r) => `${r.invitationId}  ${r.role.padEnd(7)} ${r.email}`) : '(none)');
      break;
    }
    case 'invite:accept': {
      const user = await s.members.accept(need('org'), need('invitation'), label('name'));
      print(
        { userId: user.id, email: user.email, role: user.role },
        `${user.email} joined as ${user.id} (${user.role})`,
      );
      break;
    }
    case 'temporal:setup': {
      const temporal = createTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE);
      const added = await ensureSearchAttributes(temporal, cfg.TEMPORAL_NAMESPACE);
      await temporal.connection.close();
      print({ added }, added.length ? `registered ${added.join(', ')}` : 'search attributes already registered');
      break;
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`error: ${terminalSafe(err.message)}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (err instanceof AppError && err.status < 500) {
    // The service refused what was asked (no such record, wrong plan, not enough credits): the
    // operator's input, so exit 2 like bad usage, with the service's one-line reason.
    console.error(`error: ${terminalSafe(err.message)}`);
    process.exitCode = 2;
  } else {
    console.error(terminalSafe(err instanceof Error ? err.message : String(err)));
    process.exitCode = 1;
  }
} finally {
  await temporal?.connection.close();
  await orm.close();
}
