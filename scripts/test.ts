// `npm test`: runs every test file against real PostgreSQL and a real Temporal dev server.
// DATABASE_URL (or TEST_DATABASE_URL) selects a server, whose `shelf_test` database is recreated;
// without one an embedded PostgreSQL is used. TEMPORAL_ADDRESS selects a Temporal server; without
// one a dev server is started for the run. Files that change process-wide state or look at their own
// process run one per process; the others share processes, about TEST_GROUP_SIZE (12) to one (see
// scripts/lib/test-processes.ts; TEST_GROUP_SIZE=1 gives every file its own process).
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EmbeddedPostgresSetupError, startEmbeddedPostgres } from '../src/dev/embedded-postgres.js';
import { dropDatabase, freshDatabase, templateOf } from '../test/helpers/fresh-database.js';
import { bundleName } from '../test/helpers/node-entry.js';
import { BUNDLED_ENTRIES, writeEntryBundles } from './lib/test-entry-bundles.js';
import { bundleOwnCode } from './lib/own-code-bundles.js';
import { planProcesses } from './lib/test-processes.js';
import { lostVerdicts, readFileTimes, summarise } from './lib/test-summary.js';
import { runSecretsKey } from './lib/run-secrets-key.js';
import { writeWorkflowBundle } from '../workers/workflow-bundle.js';
import { startDevServer } from './temporal.js';
import { toolSettings } from './lib/tool-settings.js';

const root = resolve(import.meta.dirname, '..');
const say = (msg: string) => console.error(`[test] ${msg}`);
const cleanups: (() => Promise<void>)[] = [];

function testFiles(dir: string, filter: string[]): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path, filter));
    else if (name.endsWith('.test.ts') && (filter.length === 0 || filter.some((f) => relative(root, path).includes(f))))
      out.push(path);
  }
  return out.sort();
}

// Each run encrypts its stored secrets with a key of its own (config.ts: SECRETS_KEY).
runSecretsKey();

let exitCode: number;
try {
  // The parts a run needs before its first test, at once: each is mostly waiting on another
  // process (PostgreSQL, the Temporal server, esbuild's, twice) or one thread of this one (the workflow
  // bundle), and one after another they held both cores half idle for some 10-20 s before any test.
  // Settled, not raced: whatever started is cleaned up even if another part failed.
  const database = (async () => {
    let serverUrl = toolSettings().TEST_DATABASE_URL ?? process.env.DATABASE_URL;
    if (!serverUrl) {
      say('no DATABASE_URL: starting an embedded PostgreSQL');
      const db = await startEmbeddedPostgres(
        join(root, '.data', 'test'),
        toolSettings().EMBEDDED_PG_PORT ?? 54330,
        say,
      );
      cleanups.push(() => db.stop());
      serverUrl = db.url;
    }
    const databaseUrl = await freshDatabase(serverUrl, toolSettings().TEST_DATABASE_NAME);
    say(`database ready: ${new URL(databaseUrl).host}${new URL(databaseUrl).pathname}`);
    // Taken before any test connects: the files that want a database of their own copy it (freshDatabase).
    const templateUrl = await templateOf(databaseUrl);
    cleanups.push(() => dropDatabase(templateUrl));
    return { databaseUrl, templateUrl };
  })();

  const temporal = (async () => {
    if (process.env.TEMPORAL_ADDRESS) return process.env.TEMPORAL_ADDRESS;
    const server = await startDevServer({
      port: toolSettings().TEST_TEMPORAL_PORT,
      headless: true,
      log: say,
    });
    cleanups.push(() => server.stop());
    say(`Temporal dev server at ${server.address}`);
    return server.address;
  })();

  const files = testFiles(join(root, 'test'), process.argv.slice(2));
  // Longest first, by the files' times in the last run on this checkout; a clean clone (CI, issue 38's
  // measure) by the times of a run kept in the repository (scripts/lib/test-file-times.json): without
  // any, the processes of files with one of their own went first and a whole group of twelve files
  // started last, running by itself at the end while a core stood idle.
  const fileTimes = join(root, '.data', 'test', 'file-times.json');
  const ownTimes = readFileTimes(fileTimes);
  const times =
    Object.keys(ownTimes).length > 0 ? ownTimes : readFileTimes(join(root, 'scripts', 'lib', 'test-file-times.json'));
  const processes = planProcesses(files, toolSettings().TEST_GROUP_SIZE, times, root);
  for (const { label, files: group } of processes)
    if (group.length > 1) say(`${label}: ${group.map((f) => relative(join(root, 'test'), f)).join(', ')}`);
  // One bundle per test process, named so that node:test (which sorts its files) starts them in the
  // planned order: built with the other parts, not after them.
  const entryDir = join(root, '.data', 'test', `processes-${process.pid}`);
  cleanups.push(() => rm(entryDir, { recursive: true, force: true }));
  const usagePath = join(entryDir, 'usage.jsonl');
  const processBundles = writeProcessBundles(
    entryDir,
    processes.map(({ label, files: group }, i) => ({
      name: `${String(i + 1).padStart(2, '0')}-${label}.test`,
      usagePath,
      label,
      files: group,
    })),
  );

  // The workflow code bundled once for the whole run: every test process and worker process loads it.
  const bundlePath = join(root, '.data', 'test', `workflow-bundle-${process.pid}.js`);
  cleanups.push(() => rm(bundlePath, { force: true }));
  const workflowBundle = writeWorkflowBundle(bundlePath);
  // And the programs tests start as child processes (the CLI, the API, the migrations).
  const entryBundles = writeEntryBundles(root, join(root, '.data', 'test'), String(process.pid));
  cleanups.push(async () => {
    const prefix = await entryBundles.catch(() => undefined);
    if (prefix) for (const entry of BUNDLED_ENTRIES) await rm(`${prefix}${bundleName(entry)}`, { force: true });
  });

  const parts = await Promise.allSettled([database, temporal, workflowBundle, entryBundles, processBundles] as const);
  const failed = parts.find((p) => p.status === 'rejected');
  if (failed) throw failed.reason;
  const { databaseUrl, templateUrl } = await database;
  const temporalAddress = await temporal;
  const entryBundlePrefix = await entryBundles;
  const bundles = await processBundles;
  const entries = bundles.filter((_, i) => !processes[i]!.alone);
  const aloneEntries = bundles.filter((_, i) => processes[i]!.alone);

  const services = { databaseUrl, templateUrl, temporalAddress, bundlePath, entryBundlePrefix };
  // The processes in turns of TEST_CONCURRENCY, then the ones that measure CPU time, one at a time.
  exitCode = 0;
  const runStart = Date.now();
  const runs: { durations: string; usage: string; offsetMs: number }[] = [];
  for (const [batch, concurrency] of [
    [entries, String(toolSettings().TEST_CONCURRENCY)],
    [aloneEntries, '1'],
  ] as const) {
    if (batch.length === 0) continue;
    if (batch === aloneEntries) say(`by itself: ${aloneEntries.map((e) => relative(entryDir, e)).join(', ')}`);
    const durations = join(entryDir, `durations-${runs.length}.jsonl`);
    runs.push({ durations, usage: usagePath, offsetMs: Date.now() - runStart });
    exitCode = Math.max(exitCode, await runTests(batch, concurrency, services, durations));
  }
  summarise(runs, root, fileTimes, say);
  // A process that ran more tests than node:test reported (nodejs/node#64833) is run once more, by
  // itself, with usage and verdicts of its own: the run is green only if that second run passes
  // and every verdict of it arrives (D355). A test failing in either run fails the run; only the
  // lost report is forgiven, never a failure.
  for (const { label, ran, reported } of lostVerdicts(runs, processes, root)) {
    say(`LOST VERDICTS: ${label} ran ${ran} tests, ${reported} verdicts reached the runner (nodejs/node#64833)`);
    const proc = processes.find((p) => p.label === label)!;
    const again = join(entryDir, `again-${label}`);
    const rerun = { durations: `${again}.durations.jsonl`, usage: `${again}.usage.jsonl`, offsetMs: 0 };
    const entry = await writeProcessBundles(entryDir, [
      { name: `again-${label}.test`, usagePath: rerun.usage, label, files: proc.files },
    ]);
    const code = await runTests(entry, '1', services, rerun.durations);
    const lostAgain = lostVerdicts([rerun], [proc], root);
    if (code === 0 && lostAgain.length === 0) say(`${label} run again by itself: green, every verdict arrived`);
    else {
      say(`${label} run again by itself: ${code === 0 ? 'verdicts lost again' : 'failed'}`);
      exitCode = 1;
    }
  }
  say(`run: ${((Date.now() - runStart) / 1000).toFixed(1)} s`);
} catch (err) {
  exitCode = 1;
  if (err instanceof EmbeddedPostgresSetupError) say(err.message);
  else console.error(err);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}
process.exit(exitCode);

/**
 * The test processes' bundles, `<dir>/<name>.mjs`, in the order given, and their paths. Each is its
 * entry module (`<dir>/sources/<name>.mjs`) bundled with what it imports (own-code-bundles.ts):
 * it records the tests it runs under `label` in `usagePath`, then imports its test files (one module
 * per process, so node:test runs the files in one process).
 */
async function writeProcessBundles(
  dir: string,
  processes: readonly { name: string; usagePath: string; label: string; files: readonly string[] }[],
): Promise<string[]> {
  await mkdir(join(dir, 'sources'), { recursive: true });
  const sources: Record<string, string> = {};
  for (const { name, usagePath, label, files } of processes) {
    sources[name] = join(dir, 'sources', `${name}.mjs`);
    await writeFile(
      sources[name],
      [
        `import { recordUsage } from ${JSON.stringify(join(root, 'scripts', 'lib', 'test-process-usage.mjs'))};\n`,
        `recordUsage(${JSON.stringify(usagePath)}, ${JSON.stringify(label)});\n`,
        ...files.map((f) => `import ${JSON.stringify(f)};\n`),
      ].join(''),
    );
  }
  await bundleOwnCode(sources, dir, root, { sourcemap: 'inline' });
  return processes.map(({ name }) => join(dir, `${name}.mjs`));
}

/** One `node --test` run over `entries`, `concurrency` processes at a time; its exit code. */
async function runTests(
  entries: readonly string[],
  concurrency: string,
  run: {
    databaseUrl: string;
    templateUrl: string;
    temporalAddress: string;
    bundlePath: string;
    entryBundlePrefix: string;
  },
  durationsPath: string,
): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      // The test processes run their bundles (writeProcessBundles), without tsx; stacks and node:test's
      // file of each test still name the .ts sources.
      '--enable-source-maps',
      // A failed assert.ok without a message takes seconds to minutes of CPU under tsx (see there).
      '--import',
      pathToFileURL(join(root, 'scripts', 'lib', 'assert-messages.mjs')).href,
      '--test',
      `--test-concurrency=${concurrency}`,
      // A test process whose tests (and after hooks) are done exits even if a failed test left a
      // server or socket open: a failure is reported, never a run that hangs until CI's limit.
      '--test-force-exit',
      // The usual report (spec on a terminal, TAP otherwise), and where the time went at the end.
      `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
      '--test-reporter-destination=stdout',
      // It writes its lines to TEST_DURATIONS_PATH itself (see there); nothing to its destination, which is
      // still a regular file: Node 24 fsyncs reporter destinations at --test-force-exit, and fsync of
      // /dev/null fails (EINVAL), failing a green run.
      `--test-reporter=${pathToFileURL(join(root, 'scripts', 'lib', 'test-durations.mjs')).href}`,
      `--test-reporter-destination=${durationsPath}.reporter`,
      ...entries,
    ],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        NODE_ENV: 'test',
        TEST_DURATIONS_PATH: durationsPath,
        DATABASE_URL: run.databaseUrl,
        TEST_TEMPLATE_DATABASE: run.templateUrl,
        TEMPORAL_ADDRESS: run.temporalAddress,
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
        ALLOW_PRIVATE_NETWORK_FETCH: process.env.ALLOW_PRIVATE_NETWORK_FETCH ?? 'true',
        WORKFLOW_BUNDLE_PATH: run.bundlePath,
        ENTRY_BUNDLE_PREFIX: run.entryBundlePrefix,
        // Node 22.1 and later keep the V8 code of the modules they load here, so the run's 40-odd
        // test processes and their children compile each package module once (Node 20 ignores it).
        NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(root, '.data', 'test', 'compile-cache'),
        // Many API and worker processes at once: metrics on free ports unless a test picks one.
        METRICS_PORT: '0',
        TEMPORAL_METRICS_PORT: '0',
      },
    },
  );
  return new Promise<number>((done) => child.once('exit', (code) => done(code ?? 1)));
}
