// `npm start`: the whole service on one machine with one command (the stack: scripts/start-stack.ts).
//
// A terminal's Ctrl-C signals its whole foreground process group. Run in that group, the embedded
// database and the Temporal dev server got the signal too and stopped at once, while the API and the
// worker were still draining (their in-flight steps failed on a closed connection, to be retried on
// the next start). So the stack runs in a process group of its own, and this process passes it one
// SIGTERM, whatever stopped it: the stack then stops in order. If this process is killed outright,
// the stack sees its IPC channel close and stops too.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const stack = spawn(
  process.execPath,
  [...process.execArgv, resolve(import.meta.dirname, 'start-stack.ts'), ...process.argv.slice(2)],
  { detached: process.platform !== 'win32', stdio: ['inherit', 'inherit', 'inherit', 'ipc'] },
);
let signalled = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    stack.kill('SIGTERM');
  });
stack.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
