import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { soakServiceEnv } from '../../scripts/soak/service-env.js';
import { freePort } from '../helpers/ports.js';
import { nodeEntry } from '../helpers/node-entry.js';

const root = resolve(import.meta.dirname, '../..');

/** The local addresses (hex, as /proc/net/tcp{,6} write them) of the sockets listening on `port`. */
function listeningOn(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // local_address is ADDRESS:PORT; state 0A is LISTEN
      .filter((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A')
      .map((f) => f[1]!.split(':')[0]!),
  );
}
const LOOPBACK = ['0100007F', '00000000000000000000000001000000'];

describe("the soak's API and worker environment", () => {
  const base = {
    databaseUrl: 'postgres://postgres@127.0.0.1:1/soak',
    temporalAddress: '127.0.0.1:1',
    secretsKey: 'k'.repeat(64),
    bundlePath: '',
    recognizer: { kind: 'local' as const },
  };

  it("never points the services at the caller's Redis, which the soak would kill: only at its own", () => {
    const theirs = { ...process.env, REDIS_URL: 'redis://127.0.0.1:6379' };
    assert.equal(soakServiceEnv(theirs, base).REDIS_URL, undefined);
    assert.equal(
      soakServiceEnv(theirs, { ...base, redisUrl: 'redis://127.0.0.1:6390' }).REDIS_URL,
      'redis://127.0.0.1:6390',
    );
  });

  it('runs the recognizer asked for: local reads the photos itself, the stand-in is openai on loopback', () => {
    const local = soakServiceEnv(process.env, base);
    assert.equal(local.RECOGNIZER, 'local');
    const standin = soakServiceEnv(process.env, {
      ...base,
      recognizer: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x' },
    });
    assert.equal(standin.RECOGNIZER, 'openai');
    assert.equal(standin.OPENAI_BASE_URL, 'http://127.0.0.1:9/v1');
  });

  it('makes an API process listen on loopback only, its public port and its metrics port', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const env = soakServiceEnv(process.env, {
      databaseUrl: process.env.DATABASE_URL!,
      temporalAddress: process.env.TEMPORAL_ADDRESS!,
      secretsKey: randomBytes(32).toString('hex'),
      bundlePath: process.env.WORKFLOW_BUNDLE_PATH ?? '',
      recognizer: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'unused' },
    });
    // As the soak starts an API slot: its environment plus the slot's ports.
    const child = spawn(process.execPath, nodeEntry('src/bin/api.ts'), {
      cwd: root,
      env: { ...env, PORT: String(port), METRICS_PORT: String(metricsPort), LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    try {
      for (
        let i = 0;
        !(await fetch(`http://127.0.0.1:${port}/health/live`).then(
          (r) => r.ok,
          () => false,
        ));
        i++
      ) {
        assert.ok(i < 600 && child.exitCode === null, 'the API process never answered');
        await new Promise((r) => setTimeout(r, 100));
      }
      for (const p of [port, metricsPort]) {
        const addresses = listeningOn(p);
        assert.ok(addresses.length > 0, `something listens on ${p}`);
        for (const a of addresses) assert.ok(LOOPBACK.includes(a), `port ${p} is listened on at ${a}, not loopback`);
      }
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});
