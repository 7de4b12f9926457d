import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';
import { parseConfig } from '../../src/config.js';
import { nodeFlagsFor, WORKER_NODE_FLAGS } from '../../workers/node-flags.js';

type Service = {
  build?: unknown;
  command?: string[];
  image?: string;
  environment?: Record<string, string | number | boolean | null>;
  ports?: (string | { host_ip?: string; published?: string | number })[];
};
const compose = load(readFileSync(resolve(import.meta.dirname, '../../docker-compose.yml'), 'utf8'), {
  schema: CORE_SCHEMA.withTags(mergeTag),
}) as { services: Record<string, Service> };

/** What an operator sets for the variables compose requires (`${VAR:?message}`): nothing else is set. */
const SAMPLES: Record<string, string> = {
  SECRETS_KEY: randomBytes(32).toString('hex'),
  POSTGRES_PASSWORD: randomBytes(24).toString('hex'),
  GRAFANA_ADMIN_PASSWORD: randomBytes(12).toString('hex'),
};

/** Compose's interpolation of one value, with only SAMPLES set: `${VAR:?msg}` must have a sample, `${VAR:-d}` is d. */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{([A-Z0-9_]+)(?:(:?[?-])([^}]*))?\}|\$([A-Z0-9_]+)/g, (all, braced, op, arg, bare) => {
    if (all === '$$') return '$';
    const name = (braced ?? bare) as string;
    if (SAMPLES[name] !== undefined) return SAMPLES[name];
    if (op === ':?' || op === '?') assert.fail(`compose requires ${name} (${arg}) and the test has no sample for it`);
    if (op === ':-' || op === '-') return arg as string;
    return '';
  });
}

/** The environment compose gives a service's container: its `environment`, interpolated, empty values dropped. */
function environmentOf(service: Service): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(service.environment ?? {})) {
    const v = interpolate(String(value ?? ''));
    if (v !== '') env[name] = v;
  }
  return env;
}

// The services run from this repository's image: the API, the worker, the one-shot migration.
const appServices = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);

describe('docker-compose.yml', () => {
  it('runs the API, the worker and the migration from our image', () => {
    assert.deepEqual(appServices.map(([name]) => name).sort(), ['api', 'migrate', 'worker']);
  });

  it("starts the worker with its V8 flags, as package.json's start:worker scripts do (D374)", () => {
    assert.deepEqual(compose.services.worker!.command, ['node', ...WORKER_NODE_FLAGS, 'dist/workers/main.js']);
    const scripts = (
      JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    assert.match(scripts['start:worker']!, new RegExp(` tsx ${WORKER_NODE_FLAGS.join(' ')} workers/main\\.ts$`));
    assert.match(
      scripts['start:worker:prod']!,
      new RegExp(` node ${WORKER_NODE_FLAGS.join(' ')} dist/workers/main\\.js$`),
    );
    // The scripts that start it by its source take the flags from there; the API and the others none.
    assert.deepEqual(nodeFlagsFor('workers/main.ts'), WORKER_NODE_FLAGS);
    assert.deepEqual(nodeFlagsFor('/srv/app/dist/workers/main.js'), WORKER_NODE_FLAGS);
    assert.deepEqual(nodeFlagsFor('src/bin/api.ts'), []);
  });

  it("each of them starts under production's configuration with only the required variables set", () => {
    for (const [name, service] of appServices) {
      const env = environmentOf(service);
      assert.equal(env.NODE_ENV, 'production', name);
      let parsed;
      try {
        parsed = parseConfig(env);
      } catch (err) {
        assert.fail(`${name} would exit at start: ${(err as Error).message}`);
      }
      assert.equal(parsed.SECRETS_KEY, SAMPLES.SECRETS_KEY, `${name}: SECRETS_KEY comes from the operator`);
      assert.ok(parsed.DATABASE_URL.includes(`:${SAMPLES.POSTGRES_PASSWORD}@`), `${name}: the database password`);
    }
  });

  it('has no default for a key or a password: compose refuses to start without each', () => {
    const text = readFileSync(resolve(import.meta.dirname, '../../docker-compose.yml'), 'utf8');
    for (const m of text.matchAll(/\$\{([A-Z0-9_]+)(:?[?-])?/g)) {
      const [, name, op] = m;
      if (/KEY|PASSWORD|SECRET|TOKEN/.test(name!)) assert.equal(op, ':?', `${name} must be given as \${${name}:?…}`);
    }
    for (const name of Object.keys(SAMPLES)) assert.match(text, new RegExp(`\\$\\{${name}:\\?[^}]+\\}`), name);
  });

  it('publishes only the API on every interface; dashboards and the rest are bound to 127.0.0.1', () => {
    const published: string[] = [];
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) {
        const hostIp =
          typeof port === 'string' ? (port.split(':').length === 3 ? port.split(':')[0] : undefined) : port.host_ip;
        published.push(`${name} ${JSON.stringify(port)}`);
        if (name === 'api') continue;
        assert.equal(hostIp, '127.0.0.1', `${name} publishes ${JSON.stringify(port)} on every interface`);
      }
    }
    for (const name of ['prometheus', 'grafana', 'temporal-ui'])
      assert.ok(
        published.some((p) => p.startsWith(`${name} `)),
        `${name} is published (on loopback)`,
      );
  });
});
