import { startServer } from '../server.js';

const { close } = await startServer();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    void close().then(() => process.exit(0));
  });
}
