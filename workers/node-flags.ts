/**
 * The V8 flags the worker process runs with, wherever it is started: `npm start`, the cluster, the
 * soak and the benchmarks (by `nodeFlagsFor`), and by hand in package.json's `start:worker` scripts
 * and docker-compose.yml's worker (a test keeps those equal to this). Semi-spaces of 32 MB, twice
 * V8's default: the worker's main thread makes many short-lived objects a photo (entities, history,
 * rows), and with the default young generation it scavenged often enough to cost some 8–10 ms of
 * CPU a photo through the service; its peak memory did not move (D374). A flag, not code: V8 sizes
 * the young generation when the process starts, and `v8.setFlagsFromString` later changes nothing.
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/** The Node flags a service entry runs with: the worker's for `workers/main`, none for the others. */
export function nodeFlagsFor(entry: string): readonly string[] {
  return /(^|\/)workers\/main\.[jt]s$/.test(entry) ? WORKER_NODE_FLAGS : [];
}
