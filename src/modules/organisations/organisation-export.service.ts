import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import { Organisation } from './organisation.entity.js';
import type { OrganisationRepository } from './organisation.repository.js';

/**
 * One kind of record in an export: rows of `from` (alias `t`) belonging to the organisation by
 * `owner`, read in pages in `key` order. `omit` drops columns holding secrets.
 */
type Source = { type: string; from: string; owner: string; key: string[]; omit?: string[] };

const own = (table: string, omit?: string[]): Omit<Source, 'type'> => ({
  from: `${table} t`,
  owner: 't.organisation_id',
  key: ['t.id'],
  omit,
});

/** What an export holds, in this order (parents before children). */
const SOURCES: Source[] = [
  { type: 'organisation', from: 'organisations t', owner: 't.id', key: ['t.id'] },
  { type: 'member', ...own('users') },
  { type: 'invitation', ...own('invitations') },
  // Never the key's hash: the prefix identifies it.
  { type: 'api_key', ...own('api_keys', ['key_hash']) },
  { type: 'project', ...own('projects') },
  { type: 'place', ...own('places') },
  { type: 'inventory_item', ...own('inventory_items') },
  { type: 'account', ...own('accounts') },
  { type: 'batch', ...own('batches') },
  { type: 'analysis', ...own('analyses', ['callback_secret']) },
  {
    type: 'analysis_run',
    from: 'analysis_runs t join analyses a on a.id = t.analysis_id',
    owner: 'a.organisation_id',
    key: ['t.analysis_id', 't.run_index'],
  },
  { type: 'product', ...own('products') },
  { type: 'task', ...own('tasks') },
  { type: 'alert', ...own('alerts') },
  { type: 'order', ...own('orders') },
  {
    type: 'order_line',
    from: 'order_lines t join orders o on o.id = t.order_id',
    owner: 'o.organisation_id',
    key: ['t.id'],
  },
  { type: 'webhook', ...own('webhooks', ['secret', 'previous_secret']) },
  { type: 'event', ...own('events') },
  { type: 'delivery', ...own('deliveries') },
  {
    type: 'delivery_attempt',
    from: 'delivery_attempts t join deliveries d on d.id = t.delivery_id',
    owner: 'd.organisation_id',
    key: ['t.delivery_id', 't.attempt'],
  },
  { type: 'credit_entry', ...own('credit_entries') },
];

/**
 * A column a later change might add with a secret in it is left out by its name too, whatever
 * `omit` says: an export goes to people outside the service.
 */
const SECRET_COLUMN = /secret|hash|password|token|sealed/i;

const PAGE = 500;

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

export type ExportRecord = { type: string; data: Record<string, unknown> };

/**
 * An organisation's records for support and data requests (CLI org:export): one record at a time
 * to `write`, which may wait (a stream's backpressure), so nothing is held in memory but a page.
 * One repeatable-read, read-only transaction: the export is one consistent snapshot. Left out:
 * secrets (key hashes, signing secrets), stored idempotent answers (encrypted, and they may quote
 * new keys), image bytes, rate-limit windows.
 */
export class OrganisationExportService {
  constructor(private readonly em: EntityManager) {}

  async export(
    organisationId: string,
    write: (record: ExportRecord) => Promise<void>,
  ): Promise<Record<string, number>> {
    return this.em.transactional(
      async (em) => {
        if (!(await em.getRepository<Organisation, OrganisationRepository>(Organisation).exists(organisationId)))
          throw new NotFoundError('organisation', organisationId);
        const counts: Record<string, number> = {};
        await write({
          type: 'export',
          data: { organisationId, exportedAt: new Date().toISOString(), types: SOURCES.map((s) => s.type) },
        });
        for (const source of SOURCES) {
          counts[source.type] = 0;
          for await (const row of this.rows(em, source, organisationId)) {
            await write({ type: source.type, data: row });
            counts[source.type]++;
          }
        }
        // The last line: a reader can tell a complete export from a cut one.
        await write({ type: 'export_end', data: { organisationId, counts } });
        return counts;
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
    );
  }

  private async *rows(em: EntityManager, source: Source, organisationId: string) {
    let after: unknown[] | null = null;
    for (;;) {
      const page = await em
        .getRepository<Organisation, OrganisationRepository>(Organisation)
        .exportPage(source, organisationId, after, PAGE);
      for (const row of page) {
        const data: Record<string, unknown> = {};
        for (const [column, value] of Object.entries(row.r as Record<string, unknown>))
          if (!source.omit?.includes(column) && !SECRET_COLUMN.test(column)) data[camel(column)] = value;
        yield data;
      }
      if (page.length < PAGE) return;
      const last = page[page.length - 1]!;
      after = source.key.map((_k, i) => last[`k${i}`]);
    }
  }
}
