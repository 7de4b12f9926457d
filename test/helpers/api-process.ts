import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from './ports.js';
import { nodeEntry } from './node-entry.js';

const root = resolve(import.meta.dirname, '../..');

/**
 * A second API process (`src/bin/api.ts`), as production runs one, on a free port, once it answers
 * /health/live. A port taken between the pick and the listen (an outgoing connection's source port,
 * another test's listener) ends that process at once: it is started again on another port, and a
 * process that ends three times, or never answers, fails with what it wrote to stderr. `env` is laid over
 * the test process's environment; a variable given as undefined is left unset.
 */
export async function startApiProcess(
  env: Record<string, string | undefined>,
): Promise<{ child: ChildProcess; base: string }> {
  let stderr = '';
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, nodeEntry('src/bin/api.ts'), {
      cwd: root,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-2000)));
    let exited = false;
    child.once('exit', () => (exited = true));
    const base = `http://127.0.0.1:${port}`;
    const deadline = performance.now() + 60_000;
    while (!exited && performance.now() < deadline) {
      if ((await fetch(`${base}/health/live`).catch(() => null))?.ok) return { child, base };
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!exited) {
      child.kill('SIGKILL');
      throw new Error(`the second API process did not answer within 60 s: ${stderr.trim()}`);
    }
  }
  throw new Error(`the second API process ended three times at start: ${stderr.trim()}`);
}
