import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../lib/secrets/index.js';
import { sql } from './sql.js';

/** The columns that hold a secret we must use again, kept sealed (SealedString). */
const SEALED_COLUMNS = [
  { table: 'webhooks', column: 'secret' },
  { table: 'webhooks', column: 'previous_secret' },
  { table: 'analyses', column: 'callback_secret' },
] as const;

/**
 * Seals every stored secret that is still in clear (rows from before encryption at rest) or sealed
 * with a key that no longer seals (after SECRETS_KEY gained a new first key). Idempotent: run by
 * `migrate` every time, it finds nothing to do once everything is current.
 */
export async function sealStoredSecrets(em: EntityManager, secretBox: () => SecretBox): Promise<number> {
  let changed = 0;
  // A database with no secret at all (a fresh one) needs no key: configuration is not even read.
  const [any] = await sql<{ found: boolean }>(
    em,
    `select ${SEALED_COLUMNS.map((c) => `exists (select 1 from ${c.table} where ${c.column} is not null)`).join(' or ')} as found`,
  );
  if (!any?.found) return 0;
  const box = secretBox();
  for (const { table, column } of SEALED_COLUMNS) {
    const rows = await sql<{ id: string; value: string }>(
      em,
      `select id, ${column} as value from ${table} where ${column} is not null and left(${column}, ?) <> ?`,
      [box.currentPrefix.length, box.currentPrefix],
    );
    for (const row of rows) {
      const plain = row.value.startsWith('sealed1.') ? box.open(row.value) : row.value;
      await sql(em, `update ${table} set ${column} = ? where id = ? and ${column} = ?`, [
        box.seal(plain),
        row.id,
        row.value,
      ]);
      changed++;
    }
  }
  return changed;
}
