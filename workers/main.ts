// The worker process's entry point (npm run start:worker, dist/workers/main.js): run-worker.ts.
import { runWorker } from './run-worker.js';

await runWorker();
