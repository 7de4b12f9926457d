import assert from 'node:assert/strict';
import { chmodSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres.js';
import { freePort } from '../helpers/ports.js';

describe('the embedded PostgreSQL (src/dev/embedded-postgres.ts)', () => {
  const folders: string[] = [];
  const folder = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `shelf-embedded-${name}-`));
    folders.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it('runs a build kept where the database user may not go (a clone in a root-only folder), from a copy beside its data', async () => {
    // The package's build, in a folder like `mktemp -d`'s (0700): as root, PostgreSQL's own user
    // cannot run it from there, as in a clone made in such a folder.
    const { postgres } = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { postgres: string };
    const closed = folder('build');
    cpSync(dirname(dirname(postgres)), join(closed, 'native'), { recursive: true, verbatimSymlinks: true });
    const dataDir = folder('data');
    chmodSync(dataDir, 0o755);
    const said: string[] = [];
    const port = await freePort();
    const db = await startEmbeddedPostgres(dataDir, port, (m) => said.push(m), {
      binaries: join(closed, 'native'),
      ownSignals: true,
    });
    try {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query<{ db: string }>('select current_database() as db');
      await client.end();
      assert.equal(rows[0]!.db, 'shelf');
      // Only root's database runs as another user, so only there is a copy needed.
      assert.equal(existsSync(join(dataDir, 'postgres-bin')), process.getuid?.() === 0, said.join('\n'));
    } finally {
      await db.stop();
    }
    // A second start finds the cluster and the copy.
    const again = await startEmbeddedPostgres(dataDir, port, (m) => said.push(m), {
      binaries: join(closed, 'native'),
      ownSignals: true,
    });
    await again.stop();
    assert.equal(said.filter((m) => m.includes('running a copy')).length, process.getuid?.() === 0 ? 1 : 0);
  });
});
