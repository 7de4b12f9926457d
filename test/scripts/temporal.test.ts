import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../scripts/temporal.js';
import { freePort } from '../helpers/ports.js';
import { alive } from '../helpers/processes.js';

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

/** `use` with a client on `server`, its connection closed after. */
async function onServer<T>(server: DevServer, use: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: server.address });
  try {
    return await use(new Client({ connection }));
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
    await onServer(first, (client) =>
      client.workflow.start('nobodyRunsThis', { workflowId: 'store-test-1', taskQueue: 'store-test-nobody' }),
    );

    // The start was answered: with every commit synced it survives a SIGKILL of the server.
    assert.ok(first.pid, 'the dev server was started by this process');
    process.kill(first.pid, 'SIGKILL');
    await first.stop();
    assert.deepEqual(sqliteFormatVersions(dbFile), [2, 2], 'the store is in WAL mode');

    const second = await startDevServer({ port, headless: true, dbFile, log: () => undefined });
    servers.push(second);
    const described = await onServer(second, (client) => client.workflow.getHandle('store-test-1').describe());
    assert.equal(described.status.name, 'RUNNING');
    assert.equal(described.type, 'nobodyRunsThis');
  });

  it('does not outlive the process that started it when that process dies of an error', async () => {
    const port = await freePort();
    const temporalTs = resolve(import.meta.dirname, '../../scripts/temporal.ts');
    // A process that starts a server, says its pid, and fails (as a benchmark failing part way does).
    const script = `const { startDevServer } = await import(${JSON.stringify(temporalTs)});
      const s = await startDevServer({ port: ${port}, headless: true, log: () => undefined });
      console.log(s.pid);
      throw new Error('failing part way');`;
    const failed = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ]).then(
      () => null,
      (err: { code: number; stdout: string }) => err,
    );
    assert.ok(failed && failed.code !== 0, 'the process failed');
    const pid = Number(failed.stdout.trim());
    assert.ok(pid > 0, `it printed the server's pid: ${failed.stdout}`);
    // Stopping takes the server a moment; a server left running would still be there long after.
    for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    const left = alive(pid);
    if (left) process.kill(pid, 'SIGKILL');
    assert.equal(left, false, 'the dev server was still running after the process that started it had died');
  });
});
