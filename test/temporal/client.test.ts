import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { config } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { createApiTemporalClient, temporalHealthy } from '../../src/temporal/client.js';
import { freePort } from '../helpers/ports.js';
import { uniquePrefix } from '../helpers/worker.js';

const logger = createLogger('silent', 'test');

describe("the API's Temporal client", () => {
  it('is on a native connection when Temporal answers, and starts workflows through it', async () => {
    const cfg = config();
    const handle = await createApiTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE, logger, 'silent');
    try {
      assert.ok(handle.connection instanceof NativeConnection);
      assert.equal(handle.eagerStarts, false);
      assert.equal(await temporalHealthy(handle), true);
      const workflowId = `${uniquePrefix('client')}wf`;
      await handle.client.workflow.start('nobodyRunsThis', { workflowId, taskQueue: `${workflowId}-queue` });
      const described = await handle.client.workflow.getHandle(workflowId).describe();
      assert.equal(described.status.name, 'RUNNING');
      await handle.client.workflow.getHandle(workflowId).terminate('test done');
    } finally {
      await handle.connection.close();
    }
  });

  it('falls back to the lazy JS client when Temporal does not answer at boot, so the API still starts', async () => {
    const handle = await createApiTemporalClient(`127.0.0.1:${await freePort()}`, 'default', logger, 'silent');
    try {
      assert.ok(handle.connection instanceof Connection);
      assert.equal(handle.native(), false);
      assert.equal(await temporalHealthy(handle, 500), false);
    } finally {
      await handle.connection.close();
    }
  });

  it('moves to a native connection once Temporal answers, and starts workflows through it', async () => {
    // Temporal appears at the API's address after the API booted: a TCP forwarder to the real server,
    // listening only from step 2.
    const port = await freePort();
    const [host, target] = config().TEMPORAL_ADDRESS.split(':') as [string, string];
    const handle = await createApiTemporalClient(
      `127.0.0.1:${port}`,
      config().TEMPORAL_NAMESPACE,
      logger,
      'silent',
      100,
    );
    const sockets = new Set<Socket>();
    const forwarder = createServer((inbound) => {
      const outbound = connect(Number(target), host);
      for (const s of [inbound, outbound]) {
        sockets.add(s);
        s.on('error', () => undefined);
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    try {
      assert.equal(handle.native(), false);
      await new Promise<void>((r) => forwarder.listen(port, '127.0.0.1', r));
      const deadline = Date.now() + 15_000;
      while (!handle.native() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(handle.native(), true, 'still on the JS client 15 s after Temporal answered');
      assert.equal(await temporalHealthy(handle), true);
      const workflowId = `${uniquePrefix('client')}wf`;
      await handle.client.workflow.start('nobodyRunsThis', { workflowId, taskQueue: `${workflowId}-queue` });
      assert.equal((await handle.client.workflow.getHandle(workflowId).describe()).status.name, 'RUNNING');
      await handle.client.workflow.getHandle(workflowId).terminate('test done');
    } finally {
      await handle.connection.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => forwarder.close(r));
    }
  });
});
