/**
 * The settings of the tools (benchmarks, the test runner, the cluster scripts, the embedded database):
 * one schema, parsed once, so each variable is named, bounded and documented in one place. The
 * service's own configuration is src/config.ts; `npm run docs:config` writes this schema's table into
 * docs/tools.md as it writes that one's into the README. A value that is not what its variable takes
 * stops the tool at once, naming the variable (a `BENCH_N=2OO` used to run a NaN benchmark).
 *
 * Where benchmarks share a variable with different defaults (BENCH_EVENTS, BENCH_ROUNDS,
 * BENCH_TEMPORAL_PORT), the schema leaves it optional and each benchmark gives its default, which the
 * description lists.
 */
import { z } from 'zod';

const unsetWhenEmpty = (v: unknown) => (v === '' ? undefined : v);
const count = (fallback: number) => z.preprocess(unsetWhenEmpty, z.coerce.number().int().positive().default(fallback));
const someCount = () => z.preprocess(unsetWhenEmpty, z.coerce.number().int().positive().optional());
const port = (fallback: number) =>
  z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(1).max(65_535).default(fallback));
const somePort = () => z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(1).max(65_535).optional());
const text = () => z.preprocess(unsetWhenEmpty, z.string().optional());

export const TOOL_SETTINGS_SCHEMA = z.object({
  // Benchmarks (npm run bench:*): where they run.
  BENCH_DATABASE_NAME: z
    .preprocess(
      unsetWhenEmpty,
      z
        .string()
        .regex(/^[a-z_][a-z0-9_]*$/)
        .default('shelf_bench'),
    )
    .describe('The database each benchmark recreates on `DATABASE_URL`’s server (`BENCH_DATABASE` is read too).'),
  BENCH_TEMPORAL_PORT: somePort()
    .meta({ defaultText: 'each benchmark its own' })
    .describe('Port of the Temporal dev server a benchmark starts when `TEMPORAL_ADDRESS` is unset.'),
  BENCH_ORG_ID: text().describe('Set by bench:api for its bare-server child: the organisation whose page it serves.'),
  BENCH_PROFILE: text().describe('A directory: the benchmarked API process writes a CPU profile there.'),
  // bench:api
  BENCH_SECONDS: count(10).describe('bench:api and bench:overhead: seconds of each measurement.'),
  BENCH_ONLY: z
    .preprocess(unsetWhenEmpty, z.enum(['reads', 'submissions', 'deliveries']).optional())
    .describe('bench:api: only the read rows, only the submission rows, or only the deliveries row.'),
  BENCH_SERVER: z
    .preprocess(unsetWhenEmpty, z.enum(['memory', 'file']).optional())
    .describe('bench:api: the submission rows on that dev server only (both by default).'),
  BENCH_SUBMISSIONS: count(600).describe('bench:api: submissions in each sustained round.'),
  BENCH_ROUNDS: someCount()
    .meta({ defaultText: 'bench:api 3, bench:console 9, bench:recognition-api 3' })
    .describe(
      'bench:api: submission rounds (the median round counts); bench:console: requests per view; bench:recognition-api: service/ceiling round pairs (the median ratio counts).',
    ),
  BENCH_WARM_SUBMISSIONS: count(3000).describe('bench:api: submissions that warm the API before the rounds.'),
  BENCH_EVENTS: someCount()
    .meta({ defaultText: 'bench:api 300, bench:deliveries 500' })
    .describe('Webhook events delivered by bench:api’s delivery row and by bench:deliveries.'),
  BENCH_RESULT_N: count(20).describe('bench:api overhead row and bench:result: photos sent.'),
  BENCH_RESULT_INTERVAL_MS: count(10_000).describe('bench:api overhead row and bench:result: ms between photos.'),
  BENCH_PHOTOS: text().describe('A directory of shelf photos for the time-to-result rows (generated ones otherwise).'),
  BENCH_RESULT_TRACE: z
    .preprocess(unsetWhenEmpty, z.enum(['on', 'off']).default('off'))
    .describe(
      'bench:result: `on` prints each analysis’ workflow history, every event as its ms after the POST, beside its recognition, completion and webhook.',
    ),
  BENCH_RATE: count(100).describe('bench:overhead: submissions a second.'),
  // The other benchmarks
  BENCH_N: count(200).describe('bench:analyses: analyses submitted.'),
  BENCH_CONCURRENCY: count(20).describe('bench:analyses: submissions in flight.'),
  BENCH_ANALYSES: count(10_000).describe('bench:console: analyses in the listed organisation.'),
  BENCH_ENDPOINTS: count(2).describe('bench:deliveries: webhook endpoints the events fan out to.'),
  BENCH_ROWS: count(1_000_000).describe('bench:reports: product rows in the table.'),
  BENCH_MEMORY_N: count(5000).describe('bench:service-memory: analyses sent through API and worker.'),
  BENCH_MEMORY_IN_FLIGHT: count(40).describe('bench:service-memory: analyses in flight at once.'),
  // bench:fair
  BENCH_FAIR_BACKLOG: count(1000).describe('bench:fair: photos in organisation A’s backlog.'),
  BENCH_FAIR_RECOGNITION_MS: count(1500).describe('bench:fair: ms the vision stand-in takes a photo.'),
  BENCH_FAIR_IDLE_N: count(5).describe('bench:fair: single photos timed with nothing queued (their median counts).'),
  BENCH_FAIR_PROBE_S: count(10).describe('bench:fair: seconds of each read and submission probe.'),
  BENCH_FAIR_QUEUED: someCount()
    .meta({ defaultText: 'a quarter of the backlog' })
    .describe('bench:fair: how many of A’s photos wait for recognition when B sends its first.'),
  BENCH_FAIR_BATCH: count(200).describe(
    'bench:fair: A’s photos in each `POST /analyses/batch` (1: single `POST /analyses` instead).',
  ),
  BENCH_FAIR_SENDERS: count(4).describe('bench:fair: requests A has in flight at once.'),
  BENCH_FAIR_FAIRNESS: z
    .preprocess(unsetWhenEmpty, z.enum(['on', 'off']).default('on'))
    .describe('bench:fair: `off` runs the dev server without fairness, for the before figure.'),
  // The test runner (npm test)
  TEST_DATABASE_URL: text().describe(
    'npm test: the PostgreSQL server for the tests (else `DATABASE_URL`, else an embedded one).',
  ),
  TEST_DATABASE_NAME: z
    .preprocess(
      unsetWhenEmpty,
      z
        .string()
        .regex(/^[a-z_][a-z0-9_]*$/)
        .default('shelf_test'),
    )
    .describe('npm test: the database it recreates (two runs on one server need two names).'),
  TEST_TEMPORAL_PORT: port(7244).describe('npm test: port of the Temporal dev server it starts.'),
  TEST_GROUP_SIZE: count(12).describe('npm test: test files run in one process.'),
  TEST_CONCURRENCY: count(5).describe(
    'npm test: test processes at once (they mostly wait: 3 left a third of 2 cores idle).',
  ),
  EMBEDDED_PG_PORT: somePort()
    .meta({ defaultText: 'npm test 54330, npm start 54329' })
    .describe('Port of the embedded PostgreSQL that `npm test` and `npm start` run without `DATABASE_URL`.'),
  // npm run cluster / cluster:check
  CLUSTER_TEMPORAL_PORT: port(7733).describe('Port of the Temporal server that `npm run cluster` runs.'),
  CLUSTER_METRICS_PORT: port(9464).describe('First metrics port of the processes `npm run cluster` runs.'),
  CLUSTER_STOP_GRACE_MS: count(30_000).describe('How long a stopping process of `npm run cluster` may take.'),
  CLUSTER_API_PORTS: z
    .preprocess(
      unsetWhenEmpty,
      z
        .string()
        .regex(/^\d+(,\d+)*$/)
        .default('3000,3002'),
    )
    .describe('The API ports `npm run cluster:check` checks, comma-separated.'),
  CLUSTER_CHECK_TIMEOUT_MS: count(120_000).describe('How long `npm run cluster:check` waits for each check.'),
});

export type ToolSettings = z.infer<typeof TOOL_SETTINGS_SCHEMA>;

let parsed: ToolSettings | undefined;

/** The tools' settings from the environment, parsed once; a bad value ends the tool naming it. */
export function toolSettings(env: NodeJS.ProcessEnv = process.env): ToolSettings {
  if (env !== process.env) return parse(env);
  parsed ??= parse(env);
  return parsed;
}

function parse(env: NodeJS.ProcessEnv): ToolSettings {
  const result = TOOL_SETTINGS_SCHEMA.safeParse({
    ...env,
    BENCH_DATABASE_NAME: env.BENCH_DATABASE_NAME ?? env.BENCH_DATABASE,
  });
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.')}=${String(env[String(i.path[0])])}: ${i.message}`);
  throw new Error(`tool settings:\n${lines.join('\n')}`);
}
