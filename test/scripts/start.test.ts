import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '../helpers/ports.js';
import { alive } from '../helpers/processes.js';
import { uniquePrefix } from '../helpers/worker.js';
import { WORKER_NODE_FLAGS } from '../../workers/node-flags.js';

const root = resolve(import.meta.dirname, '../..');

/** Every process on the machine: pid, process group and command line (Linux /proc). */
function processes(): { pid: number; ppid: number; pgid: number; cmd: string }[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
        return [{ pid: Number(pid), ppid: Number(fields[1]), pgid: Number(fields[2]), cmd }];
      } catch {
        return [];
      }
    });
}

/**
 * `npm start`'s entry as a terminal runs it: the leader of its own process group (a terminal's
 * foreground job), the embedded database in `dataDir`, the test's Temporal server (the dev server
 * the stack would start uses fixed ports).
 */
async function launch(dataDir: string): Promise<{ launcher: ChildProcess; output: () => string; port: number }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(await freePort()),
    PORT: String(port),
    HOST: '127.0.0.1',
    TASK_QUEUE_PREFIX: uniquePrefix('start'),
    LOG_LEVEL: 'silent',
  };
  delete env.DATABASE_URL;
  const launcher = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  launcher.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  launcher.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  return { launcher, output: () => text, port };
}

/** Launched, and up: the API answers. */
async function start(dataDir: string): Promise<{ launcher: ChildProcess; output: () => string; port: number }> {
  const started = await launch(dataDir);
  const deadline = Date.now() + 180_000;
  while (!started.output().includes('[start] API on')) {
    if (started.launcher.exitCode !== null || Date.now() > deadline)
      assert.fail(`the stack did not come up:\n${started.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return started;
}

describe('npm start (scripts/start.ts)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shelf-start-'));
  // As root the embedded database runs as a `postgres` user, which must reach its folder (mkdtemp makes it 0700).
  chmodSync(dataDir, 0o755);
  const started: ChildProcess[] = [];
  after(() => {
    for (const l of started) if (l.exitCode === null) process.kill(-l.pid!, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("Ctrl-C (SIGINT to the terminal's process group), and a second signal, stop the API and the worker before the database, with nothing left over", async () => {
    // Twice: the first start creates the database, the second finds it (its stop used to print a
    // connection cut by the shutdown).
    for (const round of [1, 2]) {
      const { launcher, output } = await start(dataDir);
      started.push(launcher);
      // This start's processes: the launcher's group and the stack's own (other tests run API processes too).
      const all = processes();
      const groups = new Set([
        launcher.pid!,
        ...all.filter((p) => p.cmd.includes('start-stack.ts')).map((p) => p.pgid),
      ]);
      const stack = all.filter((p) => groups.has(p.pgid));
      const database = stack.find((p) => p.cmd.includes(`${dataDir}/postgres`) && /postgres -D/.test(p.cmd));
      // The Node processes running them, from their bundles (D376).
      const runs = (name: string) => (p: { cmd: string }) =>
        new RegExp(`/\\.data/start/\\w+-${name}\\.mjs`).test(p.cmd);
      const api = stack.find(runs('api'));
      const worker = stack.find(runs('worker'));
      assert.ok(database && api && worker, `database, API and worker processes: ${JSON.stringify(stack)}`);
      // The stack's own children, not a launcher's: a SIGKILL after the stop grace reaches the API and
      // the worker themselves (tsx's launcher cannot pass it on to the Node it runs).
      const stackPid = all.find((p) => p.cmd.includes('start-stack.ts') && groups.has(p.pgid))!.pid;
      assert.equal(api.ppid, stackPid, `the API is the stack's child: ${JSON.stringify(stack)}`);
      assert.equal(worker.ppid, stackPid, `the worker is the stack's child: ${JSON.stringify(stack)}`);
      // The worker runs with its V8 flags (D374), the API without.
      for (const flag of WORKER_NODE_FLAGS) {
        assert.ok(worker.cmd.split(' ').includes(flag), worker.cmd);
        assert.ok(!api.cmd.split(' ').includes(flag), api.cmd);
      }
      // Out of the terminal's reach: a Ctrl-C must come to them through the launcher, in order.
      assert.notEqual(database.pgid, launcher.pid, 'the database is not in the terminal-facing process group');

      const gone = new Map<string, number>();
      const t0 = Date.now();
      process.kill(-launcher.pid!, 'SIGINT');
      // The second time the stack is signalled itself as well (a `kill` of every process, a service
      // manager's repeat): a second signal waits for the same ordered stop. It used to exit the stack
      // at once, and the worker, still draining, crashed on the Temporal server gone under it.
      if (round === 2) process.kill(stackPid, 'SIGTERM');
      const exited = new Promise<number | null>((r) => launcher.once('exit', (code) => r(code)));
      while (gone.size < 3 && Date.now() - t0 < 60_000) {
        for (const [name, p] of [
          ['database', database],
          ['api', api],
          ['worker', worker],
        ] as const)
          if (!gone.has(name) && !alive(p.pid)) gone.set(name, Date.now() - t0);
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(await exited, 0, output());
      assert.ok(gone.get('database')! >= Math.max(gone.get('api')!, gone.get('worker')!), JSON.stringify([...gone]));
      assert.match(output(), /\[start\] stopped/);
      assert.doesNotMatch(
        output(),
        /embedded postgres: .*(terminating connection|terminated unexpectedly)/,
        `round ${round}`,
      );
      assert.deepEqual(
        processes().filter((p) => p.cmd.includes(dataDir)),
        [],
        'no process of the stack is left',
      );
    }
  });

  it(
    'as root, with a data folder the database user may not enter, says what to do and exits, with no stack trace',
    {
      skip: process.getuid?.() !== 0 && 'only root runs PostgreSQL as another user',
    },
    async () => {
      // mkdtemp's 0700: root enters it, the `postgres` user PostgreSQL runs as does not.
      const closed = mkdtempSync(join(tmpdir(), 'shelf-start-closed-'));
      try {
        const { launcher, output } = await launch(closed);
        started.push(launcher);
        const code = await new Promise<number | null>((r) => launcher.once('exit', (c) => r(c)));
        const text = output();
        assert.equal(code, 1, text);
        assert.ok(text.includes(`may not enter ${closed}`), text);
        assert.ok(text.includes(`chmod o+x ${closed}`), text);
        assert.match(text, /DATA_DIR=/);
        assert.match(text, /DATABASE_URL=/);
        assert.doesNotMatch(text, /^\s+at /m, 'no stack trace');
        assert.deepEqual(
          processes().filter((p) => p.cmd.includes(closed)),
          [],
          'no process of the stack is left',
        );
      } finally {
        rmSync(closed, { recursive: true, force: true });
      }
    },
  );
});
