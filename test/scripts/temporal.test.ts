import assert from 'node:assert/strict';
import { mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../scripts/temporal.js';
import { freePort } from '../helpers/ports.js';

/** Bytes 18 and 19 of an SQLite file's header: the write and read format versions, 2 in WAL mode. */
function sqliteFormatVersions(file: string): [number, number] {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(20);
    readSync(fd, header, 0, 20, 0);
    return [header[18]!, header[19]!];
  } finally {
    closeSync(fd);
  }
}

async function startWorkflowOn(server: DevServer, workflowId: string) {
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection });
    await client.workflow.start('nobodyRunsThis', { workflowId, taskQueue: 'store-test-nobody' });
  } finally {
    await connection.close();
  }
}

async function describeOn(server: DevServer, workflowId: string) {
  const connection = await Connection.connect({ address: server.address });
  try {
    return await new Client({ connection }).workflow.getHandle(workflowId).describe();
  } finally {
    await connection.close();
  }
}

describe("npm start's Temporal dev server store (scripts/temporal.ts)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'shelf-temporal-store-'));
  const servers: DevServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its file in WAL mode, and a workflow started is there after the server is killed outright', async () => {
    const dbFile = join(dir, 'temporal.db');
    const port = await freePort();
    const first = await startDevServer({ port, headless: true, dbFile, log: () => undefined });
    servers.push(first);
    await startWorkflowOn(first, 'store-test-1');

    // The start was answered: with every commit synced it survives a SIGKILL of the server.
    assert.ok(first.pid, 'the dev server was started by this process');
    process.kill(first.pid, 'SIGKILL');
    await first.stop();
    assert.deepEqual(sqliteFormatVersions(dbFile), [2, 2], 'the store is in WAL mode');

    const second = await startDevServer({ port, headless: true, dbFile, log: () => undefined });
    servers.push(second);
    const described = await describeOn(second, 'store-test-1');
    assert.equal(described.status.name, 'RUNNING');
    assert.equal(described.type, 'nobodyRunsThis');
  });
});
