import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseSecretKeys } from './lib/secrets/secret-box.js';
import { OCR_ENGINES, OCR_MODELS } from './modules/recognition/engines/local/ocr-models.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * Every environment variable the processes read, parsed once. The README's configuration
 * table is generated from the same names; keep the two in step.
 */
const schema = z.object({
  /**
   * `development` or `test` let a process run without SECRETS_KEY (under a development key written in
   * the repository, so anyone can open what it seals); any other value, or none, requires the key.
   */
  NODE_ENV: z.string().optional(),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/shelf'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * How long a request or activity waits for a database connection (a free one from the pool, or a new
   * one opened) before it fails: the API then answers 503 with Retry-After instead of holding the
   * request while PostgreSQL is down, refusing, or accepting connections it never answers. The worker
   * waits at least 60 s (workers/main.ts): no client waits on an activity.
   */
  DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(800),
  /** How long opening one connection may take before it is given up (a server that accepts and never answers). */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TASK_QUEUE_PREFIX: z.string().default(''),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Behind a load balancer: take the client address from X-Forwarded-For (per-address limits). */
  TRUST_PROXY: bool.default(false),
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  // Prometheus: the API's /metrics on its own port (never the public one), the worker's on its
  // health port, the Temporal SDK's (worker) on another; all bound to METRICS_HOST.
  METRICS_HOST: z.string().default('127.0.0.1'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  TEMPORAL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ALLOW_PRIVATE_NETWORK_FETCH: bool.default(false),
  ANALYSIS_RUNS: z.coerce.number().int().min(1).max(10).default(1),
  // How soon a recognition pass whose worker died is retried elsewhere (the activity heartbeats at a quarter of it).
  RECOGNITION_HEARTBEAT_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(20_000),
  // The longest one photo may take on a recognition thread (an ordinary one takes a second or two):
  // past it the photo is refused and the analysis fails as IMAGE_TOO_COMPLEX, refunded.
  RECOGNITION_DEADLINE_MS: z.coerce.number().int().min(1000).max(240_000).default(30_000),
  // How long a worker may take to stop after SIGINT/SIGTERM (in-flight passes are cancelled at once
  // and retried elsewhere); past it the process exits anyway, recognition threads and helpers with it.
  WORKER_STOP_DEADLINE_MS: z.coerce.number().int().min(1000).max(300_000).default(15_000),
  // A workflow bundle built ahead (npm test builds one per run); unset: each worker process bundles at start.
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  ANALYSIS_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(1000).default(20),
  IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(15 * 1024 * 1024),
  /** Images whose header claims more pixels are refused (IMAGE_TOO_LARGE) before anything is decoded. */
  IMAGE_MAX_PIXELS: z.coerce.number().int().min(1_000_000).max(268_000_000).default(64_000_000),
  /** How long the console keeps the preview of an analysed photo (analysis_images). */
  IMAGE_PREVIEW_DAYS: z.coerce.number().int().min(1).default(30),
  IMAGE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  RECOGNIZER: z.string().default('local'),
  // Worker threads of the local recognizer, each reading one photo at a time with its own tesseract
  // worker; also the worker's recognition activity slots with RECOGNIZER=local. Default: one per core.
  RECOGNITION_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => availableParallelism()),
  // The local recognizer's OCR model (ocr-pool.ts): `fast` (tessdata_fast, the default) or `best`.
  OCR_MODEL: z.enum(OCR_MODELS).default('fast'),
  // Which tesseract reads (ocr-models.ts): `auto` (the default: the machine's libtesseract where it is
  // installed, tesseract.js's wasm build otherwise), `native` (refuses to start without it) or `wasm`.
  OCR_ENGINE: z.enum(OCR_ENGINES).default('auto'),
  OUTBOX_RELAY_INTERVAL_MS: z.coerce.number().int().min(50).default(1000),
  // How old an unconfirmed start must be before the relay makes it (the API's own start goes first).
  OUTBOX_RELAY_GRACE_MS: z.coerce.number().int().min(500).default(10_000),
  /** Waits after each failed attempt (decisions.md): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default('5000,300000,1800000,7200000,18000000,36000000,36000000')
    .transform((s) => s.split(',').map((v) => Number(v.trim())))
    .refine((a) => a.length > 0 && a.every((n) => Number.isInteger(n) && n >= 0), 'comma-separated milliseconds'),
  /** A task is overdue this long after the start (00:00 UTC) of its due date: by default when the day ends. */
  TASK_OVERDUE_AFTER_MS: z.coerce
    .number()
    .int()
    .default(24 * 3600 * 1000),
  /**
   * How long PATCH /tasks/{id} waits for a worker to decide a change (it is a workflow Update): past
   * it, with no worker running, the API answers 503 instead of holding the request open.
   */
  TASK_UPDATE_WAIT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Grades below this raise a low_compliance alert. */
  LOW_COMPLIANCE_GRADE: z.enum(['A', 'B', 'C', 'D']).default('C'),
  /** A matched product's price further than this share from the item's expectedPrice raises price_mismatch. */
  PRICE_MISMATCH_SHARE: z.coerce.number().min(0).max(10).default(0.1),
  /**
   * Length of a plan period in milliseconds. Unset: one calendar month (same day of month as the
   * organisation's creation, clamped to the month's last day). A fixed length is for tests.
   */
  PLAN_PERIOD_MS: z.coerce.number().int().min(1000).optional(),
  /** A balance below this after a submission raises credits_low. */
  CREDITS_LOW_THRESHOLD: z.coerce.number().int().min(0).default(10),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  /**
   * Deliveries one endpoint (a webhook; an organisation's callbacks together) may have in flight per
   * worker process: a receiver that hangs holds at most this many delivery slots, the others' go on.
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  /** An endpoint whose deliveries have all failed for this long is disabled. */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(5 * 24 * 3600 * 1000),
  /**
   * Keys that encrypt the secrets kept at rest (webhook and callback signing secrets, stored
   * idempotent answers): comma-separated, 32 bytes each as 64 hex characters or base64; the first
   * encrypts, all decrypt. Required unless NODE_ENV is `development` or `test`; `npm start` keeps one
   * in .data/secrets.key.
   */
  SECRETS_KEY: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || secretKeysValid(v),
      'comma-separated keys of 32 bytes (64 hex characters or base64)',
    ),
  /** Keeps the rate-limit windows in Redis (one Lua script per request); unset: an UNLOGGED PostgreSQL table. */
  REDIS_URL: z.string().url().optional(),
  // Traces over OTLP/HTTP (e.g. http://collector:4318); unset, tracing is off and costs nothing.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** The console (issue 37): a session unused this long ends (default one hour). */
  SESSION_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(60 * 60 * 1000),
  /** A console session ends this long after sign-in however active it is (default 12 hours). */
  SESSION_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(12 * 3600 * 1000),
  /** Failed console sign-ins allowed per e-mail address per rolling minute, whatever address they come from. */
  SIGN_IN_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(5),
  /**
   * The address people reach the service at (e.g. https://shelf.example.com): the origin of the links
   * the API and CLI hand out (sign-in, invitations) and an origin the console's requests may come from.
   * Unset: a request's own origin (API), http://localhost:PORT (CLI).
   */
  PUBLIC_URL: z.string().url().optional(),
  /** The console's built files (index.html and assets/); unset: dist/console, where `npm run build` writes them. */
  CONSOLE_DIR: z.string().min(1).optional(),
  /** The Temporal Web UI, for the console's link from an analysis to its workflow; unset, no link. */
  TEMPORAL_UI_URL: z.string().url().optional(),
  /**
   * Mail the console's links (invitations, sign-in links) through this SMTP server
   * (`smtp://user:pass@host:587`, `smtps://…:465`); unset, no mail is sent and the API and CLI hand the
   * links back to pass on.
   */
  SMTP_URL: z
    .string()
    .url()
    .refine((v) => /^smtps?:\/\//.test(v), 'an smtp:// or smtps:// URL')
    .optional(),
  /** The From of that mail. */
  SMTP_FROM: z.string().min(3).default('Shelf console <no-reply@localhost>'),
  /** With TRUST_PROXY: how many proxies in front of the API append to X-Forwarded-For (the client is that many entries from the right). */
  PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
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
