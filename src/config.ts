import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseSecretKeys } from './lib/secrets/secret-box.js';
import { OCR_ENGINES, OCR_MODELS } from './modules/recognition/engines/local/ocr-models.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * Every environment variable the processes read, parsed once. Each one's `.describe()` is its
 * documentation: `npm run docs:config` writes the README's configuration table from it (and from the
 * defaults here), and a test fails when the table is out of date.
 */
const schema = z.object({
  NODE_ENV: z
    .string()
    .optional()
    .describe(
      '`development` or `test` let a process run without `SECRETS_KEY` (under a development key written in the repository, so anyone can open what it seals); any other value (`production`, `staging`…), or none, requires it',
    ),
  DATABASE_URL: z
    .string()
    .url()
    .default('postgres://postgres@127.0.0.1:5432/shelf')
    .describe('PostgreSQL connection string; unset, `npm start` runs an embedded PostgreSQL'),
  DATABASE_POOL_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(10)
    .describe('connection pool size per process (the worker raises it to its activity concurrency + 10)'),
  DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(800)
    .describe(
      'how long a request waits for a database connection (a free one from the pool, or a new one opened) before the API answers 503 with `Retry-After`, instead of holding it while PostgreSQL is down or refusing; the worker waits at least 60 s (no client waits on an activity)',
    ),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(5000)
    .describe('how long opening one database connection may take (a server that accepts and never answers)'),
  TEMPORAL_ADDRESS: z
    .string()
    .min(1)
    .default('127.0.0.1:7233')
    .describe('Temporal frontend; unset, `npm start` runs a Temporal dev server'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default').describe('Temporal namespace'),
  TASK_QUEUE_PREFIX: z
    .string()
    .default('')
    .describe('prefix for every task queue, so deployments (or test files) can share a namespace'),
  HOST: z.string().default('0.0.0.0').describe('API bind address'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('API port'),
  TRUST_PROXY: bool
    .default(false)
    .describe(
      'behind a load balancer: take the client address from `X-Forwarded-For` (per-address limits, `PROXY_HOPS`); the console cookie becomes `__Host-` and `Secure`',
    ),
  AUTH_FAILURES_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(30)
    .describe(
      'failed authentications allowed per client address (IPv6: per /64) per rolling minute; past it the address is refused whatever key it sends',
    ),
  WORKER_HEALTH_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(3001)
    .describe("worker health endpoint (`GET /health`), and the worker's own Prometheus metrics at `GET /metrics`"),
  // Prometheus endpoints are never on the public API port.
  METRICS_HOST: z
    .string()
    .default('127.0.0.1')
    .describe(
      'address of the Prometheus endpoints (API metrics port, worker health port, SDK metrics port); `0.0.0.0` where Prometheus scrapes from another host',
    ),
  METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(9464)
    .describe("the API process's `GET /metrics` (never on the public API port); `0` picks a free port"),
  TEMPORAL_METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(9465)
    .describe(
      "the worker's Temporal SDK metrics (task slots, schedule-to-start latency, activity latency and failures, sticky cache)",
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino level (`fatal` … `trace`, `silent`)'),
  ALLOW_PRIVATE_NETWORK_FETCH: bool
    .default(false)
    .describe(
      'let image fetches and webhook deliveries reach private/loopback/link-local addresses, and admit `http://` endpoint URLs (local development and tests only)',
    ),
  ANALYSIS_RUNS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10)
    .default(1)
    .describe('independent recognition passes per analysis (`totalRuns`), merged'),
  RECOGNITION_HEARTBEAT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(600_000)
    .default(20_000)
    .describe(
      'a recognition pass silent this long (its worker died) is retried on another worker; the pass heartbeats at a quarter of it',
    ),
  RECOGNITION_DEADLINE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(240_000)
    .default(30_000)
    .describe(
      'the most processor time one photo may take on a recognition thread (an ordinary one takes 0.4–3.5 s); past it the photo is refused and the analysis fails `IMAGE_TOO_COMPLEX`, refunded, and the thread takes the next photo',
    ),
  WORKER_STOP_DEADLINE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(300_000)
    .default(15_000)
    .describe(
      'after SIGINT/SIGTERM a worker exits by then even if a step ignores its cancellation (in-flight passes are cancelled at once); unfinished steps go to another worker',
    ),
  WORKFLOW_BUNDLE_PATH: z
    .string()
    .min(1)
    .optional()
    .describe(
      'a workflow bundle built ahead (`npm test` writes one per run); unset, each worker process bundles `workflows/` at start',
    ),
  ANALYSIS_MAX_CONCURRENT_ACTIVITIES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(20)
    .describe(
      'activity slots per worker on the analyses queue, and as many local activities (image fetches, finalize, fan-out, first delivery attempts) per worker',
    ),
  IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(15 * 1024 * 1024)
    .describe('largest image fetched (15 MiB)'),
  IMAGE_MAX_PIXELS: z.coerce
    .number()
    .int()
    .min(1_000_000)
    .max(268_000_000)
    .default(64_000_000)
    .describe(
      'images whose header claims more pixels are refused (`IMAGE_TOO_LARGE`) before anything is decoded, and so are those that would take more than 3 bytes a pixel of it to decode (`IMAGE_TOO_COMPLEX`); formats: JPEG, PNG, WebP, AVIF, told from the bytes',
    ),
  IMAGE_PREVIEW_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .default(30)
    .describe(
      'how long the console keeps the preview of an analysed photo (a JPEG of at most 1,600 px a side; the photo itself is not kept); the worker deletes older ones',
    ),
  IMAGE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000).describe('time limit of one image fetch'),
  PHOTO_WRITE_WAITS_FOR_PASS_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(60)
    .describe(
      "how long a fetched photo's write into PostgreSQL waits for the worker's first recognition pass on it to begin, so that it does not compete with the orchestration the client waits on (a pass on another worker waits at most this much longer for it)",
    ),
  RECOGNIZER: z.string().default('local').describe('recognition engine the worker uses: `local` or `openai`'),
  RECOGNITION_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => availableParallelism())
    // The default is the machine's, so the table names it in words rather than this machine's figure.
    .meta({ defaultText: 'one per core' })
    .describe(
      "worker threads of the `local` recognizer (default: one per core, `os.availableParallelism()`), each reading one photo at a time with its own tesseract; with `RECOGNIZER=local` also the worker's recognition activity slots",
    ),
  OCR_MODEL: z
    .enum(OCR_MODELS)
    .default('fast')
    .describe(
      "the `local` recognizer's OCR model: `fast` (tessdata_fast, in `models/tesseract/eng-fast`) or `best` (`@tesseract.js-data/eng`'s integer best model, wasm only)",
    ),
  OCR_ENGINE: z
    .enum(OCR_ENGINES)
    .default('auto')
    .describe(
      "which tesseract reads: `native` (the machine's libtesseract, a helper process per thread; refuses to start without it), `wasm` (tesseract.js) or `auto`: native where libtesseract, `pkg-config` and `g++` are installed, wasm otherwise. `TESSERACT_HELPER` names a prebuilt helper",
    ),
  OUTBOX_RELAY_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(50)
    .default(1000)
    .describe("how often the worker's relay looks for analyses and events whose workflow start was never confirmed"),
  OUTBOX_RELAY_GRACE_MS: z.coerce
    .number()
    .int()
    .min(500)
    .default(10_000)
    .describe("how old such a row must be before the relay starts it (the API's own start goes first)"),
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default('5000,300000,1800000,7200000,18000000,36000000,36000000')
    .transform((s) => s.split(',').map((v) => Number(v.trim())))
    .refine((a) => a.length > 0 && a.every((n) => Number.isInteger(n) && n >= 0), 'comma-separated milliseconds')
    .describe(
      'waits after each failed delivery attempt, comma-separated (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 7 waits = 8 attempts)',
    ),
  TASK_OVERDUE_AFTER_MS: z.coerce
    .number()
    .int()
    .default(24 * 3600 * 1000)
    .describe('a task is overdue this long after 00:00 UTC of its due date (default: when the day ends)'),
  TASK_UPDATE_WAIT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(30_000)
    .describe(
      'how long `PATCH /tasks/{id}` (a workflow Update) waits for a worker to decide the change before answering 503',
    ),
  LOW_COMPLIANCE_GRADE: z
    .enum(['A', 'B', 'C', 'D'])
    .default('C')
    .describe('compliance grades below this raise `low_compliance`'),
  PRICE_MISMATCH_SHARE: z.coerce
    .number()
    .min(0)
    .max(10)
    .default(0.1)
    .describe("a matched product's price further than this share from `expectedPrice` raises `price_mismatch`"),
  PLAN_PERIOD_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .optional()
    .describe(
      "length of a plan period in milliseconds, for tests; unset, one calendar month ending on the organisation's day of month (clamped to the month's last day)",
    ),
  CREDITS_LOW_THRESHOLD: z.coerce
    .number()
    .int()
    .min(0)
    .default(10)
    .describe('a submission leaving fewer credits raises `credits_low` (once per plan period)'),
  WEBHOOK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(15_000)
    .describe('a delivery attempt must answer 2xx within this'),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(2)
    .describe(
      "deliveries one endpoint (a webhook; an organisation's callbacks together) may have in flight per worker process: a receiver that hangs holds at most this many delivery slots (and, for at most 250 ms after it stops answering, those of the deliveries waiting in line for them), the others' go on",
    ),
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(5 * 24 * 3600 * 1000)
    .describe('an endpoint failing every delivery this long (5 days) is disabled'),
  SECRETS_KEY: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || secretKeysValid(v),
      'comma-separated keys of 32 bytes (64 hex characters or base64)',
    )
    .meta({ defaultText: 'none: **required** unless `NODE_ENV` is `development` or `test`' })
    .describe(
      'encrypts the secrets kept at rest (webhook and callback signing secrets, stored idempotent answers; AES-256-GCM): comma-separated 32-byte keys (64 hex or base64, e.g. `openssl rand -hex 32`), the first encrypts, all decrypt. **Required** unless `NODE_ENV` is `development` or `test`: without it the API, the worker, the CLI and `migrate` exit at start. `npm start` keeps one in `.data/secrets.key`, `npm test` makes one per run',
    ),
  REDIS_URL: z
    .string()
    .url()
    .optional()
    .describe(
      'keep the rate-limit windows in Redis (one Lua script per request); unset: an `UNLOGGED` PostgreSQL table',
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .optional()
    .describe(
      'OpenTelemetry traces over OTLP/HTTP to this collector (e.g. `http://collector:4318`): one trace from the API request through the workflow and its activities; unset, tracing is off and costs nothing',
    ),
  SESSION_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(60 * 60 * 1000)
    .describe('a console session unused this long (one hour) ends'),
  SESSION_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(12 * 3600 * 1000)
    .describe('a console session ends this long (12 hours) after sign-in, however active'),
  SIGN_IN_FAILURES_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(5)
    .describe(
      "failed console sign-ins allowed per e-mail address per rolling minute, from any address (the address's own budget is `AUTH_FAILURES_PER_MINUTE`)",
    ),
  PUBLIC_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "where people reach the service (`https://shelf.example.com`): the origin of the sign-in and invitation links the API and CLI hand out, and an origin the console may send from; unset, the request's own origin (API) or `http://localhost:$PORT` (CLI)",
    ),
  CONSOLE_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      "the console's built files (index.html and assets/); unset: `dist/console`, where `npm run build` writes them",
    ),
  TEMPORAL_UI_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "the Temporal Web UI, for the console's link from an analysis to its workflow (`npm start` sets `http://localhost:8233`); unset, no link",
    ),
  SMTP_URL: z
    .string()
    .url()
    .refine((v) => /^smtps?:\/\//.test(v), 'an smtp:// or smtps:// URL')
    .optional()
    .describe(
      "mail the console's links (invitations, sign-in links) through this SMTP server (`smtp://user:pass@host:587`, STARTTLS when offered; `smtps://…:465`); unset, or when the server refuses the mail, the API and CLI hand the links back to pass on",
    ),
  SMTP_FROM: z.string().min(3).default('Shelf console <no-reply@localhost>').describe('the From of that mail'),
  PROXY_HOPS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10)
    .default(1)
    .describe(
      'with `TRUST_PROXY`: how many proxies append to `X-Forwarded-For`; the client is that many entries from the right, anything further left is ignored',
    ),
});

function secretKeysValid(v: string): boolean {
  try {
    return parseSecretKeys(v).length > 0;
  } catch {
    return false;
  }
}

/** The NODE_ENV values under which a process may run without SECRETS_KEY (secrets/index.ts). */
export const KEYLESS_ENVIRONMENTS: readonly string[] = ['development', 'test'];

/** What a process without SECRETS_KEY says, in one paragraph, before it exits. */
export const SECRETS_KEY_MISSING =
  'SECRETS_KEY is not set. It encrypts what the service must keep but never store in clear (webhook and ' +
  'callback signing secrets, and stored idempotent answers, which can hold a new API key), and without it ' +
  'they would be sealed under a development key written in the repository, which anyone can read. Set ' +
  'SECRETS_KEY to a random 32-byte key, made with `openssl rand -hex 32` or ' +
  "`node -e \"console.log(require('node:crypto').randomBytes(32).toString('hex'))\"`, and keep it with your other secrets: " +
  'every API, worker, migration and CLI process of one database needs the same one (several, ' +
  'comma-separated, while rotating: the first seals, all open). Only for local development or tests, ' +
  'NODE_ENV=development or NODE_ENV=test runs without one.';

const checked = schema.superRefine((c, ctx) => {
  if (!c.SECRETS_KEY && !KEYLESS_ENVIRONMENTS.includes(c.NODE_ENV ?? '')) {
    // No path: the paragraph names the variable itself.
    ctx.addIssue({ code: 'custom', path: [], message: SECRETS_KEY_MISSING });
  }
});

export type Config = z.infer<typeof schema>;

/** The schema itself, for the configuration table's generator (scripts/docs-config.ts). */
export const CONFIG_SCHEMA = schema;

/** For the README check: every variable must be documented there. */
export const CONFIG_KEYS = Object.keys(schema.shape);

/** The configuration's problems, one line (or paragraph) each; no stack trace is wanted for them. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = checked.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

let cached: Config | undefined;
/** The process-wide configuration, parsed on first use. */
export function config(): Config {
  cached ??= parseConfig();
  return cached;
}

/**
 * For a process's entry point (API, worker, CLI, migrate): the configuration, or, when it is invalid,
 * its problems on stderr and exit code 1: an operator's mistake, told without a stack trace.
 */
export function configOrExit(): Config {
  try {
    return config();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
