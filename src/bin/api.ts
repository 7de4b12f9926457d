import { configOrExit } from '../config.js';
import { startServer } from '../server.js';

// An invalid configuration (no SECRETS_KEY outside development) is told in a paragraph, not a stack trace.
configOrExit();
const { close } = await startServer();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    void close().then(() => process.exit(0));
  });
}
