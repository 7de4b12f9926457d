// The production worker (workers/run-worker.ts) with one extra recognizer: a slow scripted one that
// announces on stdout when a pass starts, so a test can kill the process mid-pass. Its workflow code
// runs on the main thread, as in the test workers a test starts in its own process (D298, D366).
import { runWorker } from '../../workers/run-worker.js';
import { product, ScriptedRecognizer } from './scripted-recognizer.js';

await runWorker({
  recognizers: {
    'slow-scripted': () =>
      new ScriptedRecognizer(async () => {
        process.stdout.write('RECOGNIZING\n');
        await new Promise((r) => setTimeout(r, Number(process.env.SLOW_RECOGNIZER_MS ?? 4000)));
        return [product({ brand: 'Heinz', description: 'Baked Beans 415g', units: 3, price: 0.95, currency: 'GBP' })];
      }),
  },
  workflowsOnThisThread: true,
});
