// The workflow code as one bundle: built by the workers at start (from the sources), ahead by `npm run
// build` (dist/workflow-bundle.js) and once per `npm test` run (WORKFLOW_BUNDLE_PATH). Apart from
// create-workers.ts so that what only bundles (the test runner, the build) does not load the
// activities and the whole service: 2.2 s of CPU before `npm test`'s first test could start.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundle } from '@temporalio/worker';

const workflowsPath = new URL('../workflows/index.ts', import.meta.url).pathname;

/**
 * The bundle `npm run build` writes next to the compiled code (dist/workflow-bundle.js), if this is
 * the compiled code; from the sources there is none and the workers bundle at start.
 */
export function prebuiltWorkflowBundle(): string | undefined {
  const path = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));
  return import.meta.url.endsWith('.js') && existsSync(path) ? path : undefined;
}
let bundle: Promise<WorkflowBundle> | undefined;

/** The workflow code, bundled once per process and shared by every worker (each bundling takes seconds). */
export function workflowBundle(): Promise<WorkflowBundle> {
  return (bundle ??= bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') }));
}

let tracedBundle: Promise<WorkflowBundle> | undefined;
/** The workflow code with the OpenTelemetry workflow interceptors, for workers with tracing on. */
export function tracedWorkflowBundle(): Promise<WorkflowBundle> {
  return (tracedBundle ??= bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: [
      createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
    ],
    logger: new DefaultLogger('WARN'),
  }));
}

/** Bundles the workflow code into a file, for WORKFLOW_BUNDLE_PATH (npm test does it once per run). */
export async function writeWorkflowBundle(path: string): Promise<void> {
  const { code } = await workflowBundle();
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, code);
}
