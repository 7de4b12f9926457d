// The stack `npm start` runs (scripts/start.ts launches it in a process group of its own): an embedded
// PostgreSQL and the Temporal dev server (unless pointed elsewhere), migrations, a development
// organisation on first start, then the API and the worker until it is told to stop, when it stops
// them in order: the API and the worker (which drain), then the Temporal server, then the database.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { initORM, migrate } from '../src/db/orm.js';
import {
  EmbeddedPostgresSetupError,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from '../src/dev/embedded-postgres.js';
import { memberLinkUrl } from '../src/modules/sessions/session.service.js';
import { createServices } from '../src/services.js';
import { buildConsole } from './build-console.js';
import { startDevServer, waitForPort, type DevServer } from './temporal.js';
import { toolSettings } from './lib/tool-settings.js';
import { bundleOwnCode } from './lib/own-code-bundles.js';
import { nodeFlagsFor } from '../workers/node-flags.js';

const root = resolve(import.meta.dirname, '..');
const dataDir = resolve(process.env.DATA_DIR ?? join(root, '.data'));
mkdirSync(dataDir, { recursive: true });
const say = (msg: string) => console.log(`[start] ${msg}`);

// Stored secrets are encrypted with SECRETS_KEY; a development stack keeps its own key beside its
// data (mode 600), made on first start, so its database is never readable without it.
if (!process.env.SECRETS_KEY) {
  const keyFile = join(dataDir, 'secrets.key');
  if (!existsSync(keyFile)) writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  process.env.SECRETS_KEY = readFileSync(keyFile, 'utf8').trim();
}

const cleanups: (() => Promise<void>)[] = [];
const children: ChildProcess[] = [];
let stopping: Promise<never> | undefined;

/**
 * Stops the stack in order, once: a second signal (the launcher's SIGTERM after a SIGINT sent to the
 * stack too, a service manager's repeat) waits for the same stop. It used to exit at once, leaving the
 * worker draining against a Temporal server already gone (it crashed on the lost connection).
 */
function shutdown(code: number): Promise<never> {
  return (stopping ??= stop(code));
}

async function stop(code: number): Promise<never> {
  say('stopping...');
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((done) => {
          if (c.exitCode !== null || c.signalCode !== null) return done();
          c.once('exit', () => done());
          c.kill('SIGTERM');
          setTimeout(() => c.kill('SIGKILL'), 15_000).unref();
        }),
    ),
  );
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e) => say(`cleanup failed: ${e}`));
  say('stopped');
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
// The launcher gone (even killed outright): the stack does not outlive it.
process.on('disconnect', () => void shutdown(1));

try {
  // Our code of the API and the worker, one file each (esbuild, under a second, while the database
  // starts), the packages left as imports: started under tsx's loader they spent some 3 s of CPU more
  // between them, transforming every module on every start (D376). Inside the checkout, where the
  // packages resolve (the data folder may be anywhere), named by the data folder: a restart
  // overwrites its own, and a stack that stops removes them.
  const programs = { api: 'src/bin/api.ts', worker: 'workers/main.ts' } as const;
  const bundleDir = join(root, '.data', 'start');
  const prefix = `${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}-`;
  const bundled = bundleOwnCode(
    Object.fromEntries(Object.entries(programs).map(([name, entry]) => [name, join(root, entry)])),
    bundleDir,
    root,
    { prefix, sourcemap: 'linked' },
  );
  // Awaited before the programs start; a failure meanwhile is reported there, not as unhandled.
  bundled.catch(() => undefined);
  const bundleOf = (name: string) => join(bundleDir, `${prefix}${name}.mjs`);
  cleanups.push(async () => {
    for (const name of Object.keys(programs))
      for (const file of [bundleOf(name), `${bundleOf(name)}.map`]) rmSync(file, { force: true });
  });

  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const port = toolSettings().EMBEDDED_PG_PORT ?? 54329;
    say(`starting embedded PostgreSQL on 127.0.0.1:${port} (data in ${join(dataDir, 'postgres')})`);
    const db: EmbeddedDatabase = await startEmbeddedPostgres(dataDir, port, say, { ownSignals: true });
    cleanups.push(() => db.stop());
    databaseUrl = db.url;
  }

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  let temporalUiUrl: string | undefined;
  if (!temporalAddress) {
    say('starting the Temporal dev server on 127.0.0.1:7233');
    const server: DevServer = await startDevServer({
      port: 7233,
      uiPort: 8233,
      dbFile: join(dataDir, 'temporal.db'),
      log: say,
    });
    cleanups.push(() => server.stop());
    temporalAddress = server.address;
    temporalUiUrl = server.uiUrl;
    say(`Temporal Web UI: ${server.uiUrl}`);
  }

  const orm = await initORM(databaseUrl);
  const applied = await migrate(orm);
  say(applied.length ? `migrations applied: ${applied.join(', ')}` : 'database is up to date');
  const port = Number(process.env.PORT ?? 3000);
  const consoleOrigin = process.env.PUBLIC_URL ? new URL(process.env.PUBLIC_URL).origin : `http://localhost:${port}`;
  const services = createServices(orm.em.fork());
  let signInLink: string | undefined;
  if ((await services.organisations.list()).length === 0) {
    const org = await services.organisations.create({ name: 'Development', plan: 'growth', credits: 1000 });
    const { secret } = await services.apiKeys.create(org.id, 'admin', 'development admin key');
    // The first owner, so the console can be opened at once: their one-time link is printed below.
    const owner = await services.members.add(org.id, {
      name: 'Development owner',
      email: 'owner@localhost',
      role: 'owner',
    });
    signInLink = memberLinkUrl(consoleOrigin, (await services.sessions.createSignInLink(org.id, owner.id)).token);
    say(`created development organisation ${org.id} with 1000 credits and its owner owner@localhost`);
    say(`admin API key (shown once, store it now):\n\n    ${secret}\n`);
  }
  await orm.close();
  // The console's assets (a second or two with esbuild), so /console works on the first start.
  const built = await buildConsole();
  say(`console built (${built.script})`);

  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    // The console links an analysis to its workflow in the dev server's Web UI.
    ...(temporalUiUrl && !process.env.TEMPORAL_UI_URL ? { TEMPORAL_UI_URL: temporalUiUrl } : {}),
  };
  await bundled;
  for (const [name, entry] of Object.entries(programs)) {
    // Node itself, not a launcher (npm's, tsx's) that runs Node as a child of its own: a SIGKILL to
    // a launcher, which cannot be passed on, left that child running after the stack had stopped.
    const child = spawn(process.execPath, [...nodeFlagsFor(entry), '--enable-source-maps', bundleOf(name)], {
      env,
      stdio: 'inherit',
    });
    child.once('exit', (code, signal) => {
      if (!stopping) {
        say(`${name} exited (${signal ?? code}); stopping everything`);
        void shutdown(1);
      }
    });
    children.push(child);
  }
  // Said once the API answers, not when it was spawned: a request sent on this line used to be refused.
  const host = process.env.HOST && process.env.HOST !== '0.0.0.0' ? process.env.HOST : '127.0.0.1';
  await waitForPort(port, host);
  say(`API on http://localhost:${port}/api/v1 (reference: /api/v1/docs). Ctrl-C stops everything.`);
  say(`console: ${consoleOrigin}/console`);
  if (signInLink)
    say(`sign in to the console as owner@localhost with this one-time link (24 hours):\n\n    ${signInLink}\n`);
  else say('a new sign-in link for the console: npm run cli -- member:login-link --org <org_id> (README, Console)');
} catch (err) {
  // A setup the user can fix is told as what to do; anything else with its stack, for us.
  if (err instanceof EmbeddedPostgresSetupError) say(err.message);
  else console.error(err);
  await shutdown(1);
}
