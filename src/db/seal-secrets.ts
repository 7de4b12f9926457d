import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../lib/secrets/index.js';
import { sql } from './sql.js';

/** The columns that hold a secret we must use again, kept sealed (SealedString). */
const SEALED_COLUMNS = [
  { table: 'webhooks', column: 'secret' },
  { table: 'webhooks', column: 'previous_secret' },
  { table: 'analyses', column: 'callback_secret' },
] as const;

/** Stored idempotent answers (idempotency.service.ts), sealed whole; keyed by (organisation, API key, key). */
const ANSWERS = { table: 'idempotency_keys', column: 'response_sealed' } as const;
const ANSWER_BATCH = 500;

/**
 * Seals every stored secret that is still in clear (rows from before encryption at rest) or sealed
 * with a key that no longer seals (after SECRETS_KEY gained a new first key), and the stored
 * idempotent answers with them (resealAnswers). Idempotent: run by `migrate` every time, it finds
 * nothing to do once everything is current.
 */
export async function sealStoredSecrets(em: EntityManager, secretBox: () => SecretBox): Promise<number> {
  let changed = 0;
  // A database with no secret at all (a fresh one) needs no key: configuration is not even read.
  const [any] = await sql<{ found: boolean }>(
    em,
    `select ${[...SEALED_COLUMNS, ANSWERS]
      .map((c) => `exists (select 1 from ${c.table} where ${c.column} is not null)`)
      .join(' or ')} as found`,
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
  return changed + (await resealAnswers(em, box));
}

/**
 * Re-seals under the current key every stored idempotent answer sealed under another one, so that
 * once the old key is dropped from SECRETS_KEY a retry still replays its answer (it used to answer
 * 500 until the answer expired, 24 hours). An answer that no configured key opens (its key was
 * dropped before a migrate re-sealed it) is deleted: its retry is then a new request, as after the
 * 24 hours, where keeping it would refuse the retry with a 500 until then. Webhook and callback
 * secrets are never dropped (sealStoredSecrets fails instead, first): they cannot be made again.
 * In batches, by primary key, so a day of answers is never held in memory at once.
 */
async function resealAnswers(em: EntityManager, box: SecretBox): Promise<number> {
  type Row = { organisation_id: string; api_key_id: string; key: string; value: string };
  const pk = `organisation_id = ? and api_key_id = ? and key = ? and response_sealed = ?`;
  let changed = 0;
  let after: Row | undefined;
  for (;;) {
    const rows: Row[] = await sql<Row>(
      em,
      `select organisation_id, api_key_id, key, response_sealed as value from idempotency_keys
        where response_sealed is not null and left(response_sealed, ?) <> ?
          ${after ? 'and (organisation_id, api_key_id, key) > (?, ?, ?)' : ''}
        order by organisation_id, api_key_id, key limit ${ANSWER_BATCH}`,
      [
        box.currentPrefix.length,
        box.currentPrefix,
        ...(after ? [after.organisation_id, after.api_key_id, after.key] : []),
      ],
    );
    for (const row of rows) {
      const where = [row.organisation_id, row.api_key_id, row.key, row.value];
      let plain: string | undefined;
      try {
        plain = box.open(row.value);
      } catch {
        plain = undefined;
      }
      if (plain === undefined) await sql(em, `delete from idempotency_keys where ${pk}`, where);
      else await sql(em, `update idempotency_keys set response_sealed = ? where ${pk}`, [box.seal(plain), ...where]);
      changed++;
    }
    if (rows.length < ANSWER_BATCH) return changed;
    after = rows[rows.length - 1];
  }
}
