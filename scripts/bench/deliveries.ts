// Benchmark: webhook deliveries per second to a local receiver, through the real path (event
// record, fan-out, one delivery workflow per delivery, signed POST). Prints numbers; asserts nothing.
// Usage: DATABASE_URL=postgres://… npm run bench:deliveries   (BENCH_EVENTS, BENCH_ENDPOINTS)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { createServices } from '../../src/services.js';
import { taskQueues } from '../../src/temporal/contracts/task-queues.js';
import { benchEnvironment, benchRuntime } from './setup.js';
import { createCommands } from '../../src/commands.js';
import { toolSettings } from '../lib/tool-settings.js';

const EVENTS = toolSettings().BENCH_EVENTS ?? 500;
const ENDPOINTS = toolSettings().BENCH_ENDPOINTS;

const { devServer } = await benchEnvironment(7256);

const { prefix, runtime } = await benchRuntime({ DATABASE_POOL_MAX: 40 });
const services = createServices(runtime.orm.em.fork(), { config: runtime.config, logger: runtime.logger });

let received = 0;
let lastAt = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    lastAt = performance.now();
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const org = await services.organisations.create({ name: 'Bench', plan: 'scale', credits: 0 });
for (let i = 0; i < ENDPOINTS; i++) await services.webhooks.create(org.id, { url, events: ['task.created'] });
const eventIds: string[] = [];
for (let i = 0; i < EVENTS; i++) {
  const e = await runtime.orm.em.fork().transactional((tx) =>
    services.events.record(tx, {
      organisationId: org.id,
      type: 'task.created',
      dedupeKey: `bench:${i}`,
      data: { taskId: `tsk_${i}` },
    }),
  );
  eventIds.push(e.id);
}

const queues = taskQueues(prefix);
const connection = await NativeConnection.connect({ address: runtime.config.TEMPORAL_ADDRESS });
const activities = createActivities({
  orm: runtime.orm,
  config: runtime.config,
  client: runtime.temporal.client,
  recognizer: async () => {
    throw new Error('unused');
  },
});
const worker = await Worker.create({
  connection,
  taskQueue: queues.deliveries,
  workflowsPath: new URL('../../workflows/index.ts', import.meta.url).pathname,
  activities,
  maxConcurrentActivityTaskExecutions: 30,
});
const running = worker.run();

const t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 10 }, async () => {
    while (next < eventIds.length)
      await createCommands(createServices(runtime.orm.em.fork(), { config: runtime.config }), {
        client: runtime.temporal.client,
        config: runtime.config,
      }).events.dispatch(eventIds[next++]!);
  }),
);
const dispatched = performance.now();
const expected = EVENTS * ENDPOINTS;
while (received < expected) await new Promise((r) => setTimeout(r, 50));
const seconds = (lastAt - t0) / 1000;
console.log(
  JSON.stringify(
    {
      events: EVENTS,
      endpoints: ENDPOINTS,
      deliveries: expected,
      fanOutSeconds: Number(((dispatched - t0) / 1000).toFixed(2)),
      secondsUntilAllReceived: Number(seconds.toFixed(2)),
      deliveriesPerSecond: Math.round(expected / seconds),
    },
    null,
    2,
  ),
);
worker.shutdown();
await running;
await connection.close();
receiver.close();
await runtime.close();
await devServer?.stop();
process.exit(0);
