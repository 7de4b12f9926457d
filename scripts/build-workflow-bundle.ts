// Part of `npm run build`: the workflow code bundled ahead into dist/workflow-bundle.js, so a
// production worker loads it instead of bundling `workflows/` at start (workers/main.ts finds it).
import { resolve } from 'node:path';
import { writeWorkflowBundle } from '../workers/workflow-bundle.js';

const path = resolve(import.meta.dirname, '../dist/workflow-bundle.js');
await writeWorkflowBundle(path);
console.log(`workflow bundle: ${path}`);
