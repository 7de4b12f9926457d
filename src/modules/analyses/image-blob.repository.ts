import { EntityRepository, type EntityManager } from '@mikro-orm/postgresql';
import { preparedSql, sql } from '../../db/sql.js';
import type { ImageBlob } from './image-blob.entity.js';

/** The console's preview written over any earlier one: the head and tail of each statement storing it. */
const INSERT_PREVIEW = `insert into analysis_images (analysis_id, organisation_id, content_type, width, height, bytes, created_at)`;
const OVER_EARLIER_PREVIEW = `on conflict (analysis_id) do update set width = excluded.width, height = excluded.height, bytes = excluded.bytes, created_at = excluded.created_at`;

/** The console's preview upserted (analysis id, organisation, width, height, JPEG bytes): its one statement. */
const STORE_PREVIEW = `${INSERT_PREVIEW} values (?, ?, 'image/jpeg', ?, ?, ?, now()) ${OVER_EARLIER_PREVIEW}`;

const STORE_BLOB = `insert into image_blobs (analysis_id, content_type, width, height, bytes, created_at) values (?, ?, ?, ?, ?, now())
         on conflict (analysis_id) do update set content_type = excluded.content_type, width = excluded.width, height = excluded.height, bytes = excluded.bytes`;

/**
 * The advisory lock a photo's write beside recognition holds until it commits (decisions.md D335): the
 * first key names what it locks, the second the analysis. A pass elsewhere that finds no stored copy
 * waits on it, so that it reads the copy being written rather than fetching the photo again.
 */
const WRITE_LOCK = `select pg_advisory_xact_lock(335, hashtext(?))`;
const WAIT_FOR_WRITE = `select pg_advisory_xact_lock_shared(335, hashtext(?))`;

export type BlobRow = { analysisId: string; contentType: string; width: number; height: number; bytes: Buffer };
export type PreviewRow = { organisationId: string; width: number; height: number; data: Buffer };

/**
 * A photo parked for the recognition passes (image_blobs) and the console's preview of it (analysis_images).
 * The writes of bytes are prepared statements (`preparedSql`), whose values travel as binary
 * parameters: `sql()` writes each value into the statement's text, a 3 MB photo as 6 MB of escaped
 * hex that PostgreSQL then parses, 160–250 ms of the fetch a client waits on (decisions.md D248).
 */
export class ImageBlobRepository extends EntityRepository<ImageBlob> {
  async store(b: BlobRow): Promise<void> {
    await preparedSql(this.getEntityManager(), STORE_BLOB, [b.analysisId, b.contentType, b.width, b.height, b.bytes]);
  }

  /**
   * Takes the photo's write lock in this transaction (see WRITE_LOCK), for a write whose caller goes
   * on once the lock is held: `store` in the same transaction, then its commit, release it.
   */
  async lockForWrite(analysisId: string): Promise<void> {
    await sql(this.getEntityManager(), WRITE_LOCK, [analysisId]);
  }

  /** The photo and its preview in one statement. */
  async storeWithPreview(b: BlobRow, p: PreviewRow): Promise<void> {
    await preparedSql(this.getEntityManager(), `with blob as (${STORE_BLOB}) ${STORE_PREVIEW}`, [
      b.analysisId,
      b.contentType,
      b.width,
      b.height,
      b.bytes,
      b.analysisId,
      p.organisationId,
      p.width,
      p.height,
      p.data,
    ]);
  }

  /** The stored photo of a finished analysis, and its organisation. */
  async ofFinished(analysisId: string): Promise<{ bytes: Buffer; organisation_id: string } | undefined> {
    const [stored] = await sql<{ bytes: Buffer; organisation_id: string }>(
      this.getEntityManager(),
      `select b.bytes, a.organisation_id from image_blobs b join analyses a on a.id = b.analysis_id
        where b.analysis_id = ? and a.status <> 'processing'`,
      [analysisId],
    );
    return stored;
  }

  /**
   * Whose the stored photo of a finished analysis is, its bytes left where they are: for a preview made
   * from the photo this process still keeps (D283), the row need only be there.
   */
  async ownerOfFinished(analysisId: string): Promise<{ organisation_id: string } | undefined> {
    const [stored] = await sql<{ organisation_id: string }>(
      this.getEntityManager(),
      `select a.organisation_id from image_blobs b join analyses a on a.id = b.analysis_id
        where b.analysis_id = ? and a.status <> 'processing'`,
      [analysisId],
    );
    return stored;
  }

  /**
   * The stored photo made its own preview (a small upright JPEG, D342) inside PostgreSQL, in one
   * statement: its bytes are already there, so they are not sent a second time (D375).
   */
  async moveToPreview(analysisId: string, organisationId: string, width: number, height: number): Promise<void> {
    await sql(
      this.getEntityManager(),
      `with gone as (delete from image_blobs where analysis_id = ? returning bytes)
       ${INSERT_PREVIEW} select ?, ?, 'image/jpeg', ?, ?, bytes, now() from gone ${OVER_EARLIER_PREVIEW}`,
      [analysisId, analysisId, organisationId, width, height],
    );
  }

  /** The photo deleted and, if any, its preview stored, in one statement. */
  async replaceWithPreview(analysisId: string, p: PreviewRow | null): Promise<void> {
    await preparedSql(
      this.getEntityManager(),
      p
        ? `with gone as (delete from image_blobs where analysis_id = ?) ${STORE_PREVIEW}`
        : `delete from image_blobs where analysis_id = ?`,
      p ? [analysisId, analysisId, p.organisationId, p.width, p.height, p.data] : [analysisId],
    );
  }

  /**
   * Previews older than `days` deleted, and stored photos of finished analyses an hour old; the
   * number of previews deleted.
   */
  async purgePreviews(days: number): Promise<number> {
    const rows = await sql<{ n: number }>(
      this.getEntityManager(),
      `with d as (delete from analysis_images where created_at < now() - make_interval(days => ?) returning 1),
            left_over as (delete from image_blobs b using analyses a
                           where a.id = b.analysis_id and a.status <> 'processing' and b.created_at < now() - interval '1 hour')
       select count(*)::int as n from d`,
      [days],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * The stored photo and whose it is, in one round trip: a recognition pass needs nothing else. With
   * `afterWrite`, a photo whose write is going on (its lock held) is waited for and read once it
   * committed; a write that never commits (its worker killed) gives nothing, as no write does.
   */
  async forRecognition(
    analysisId: string,
    { afterWrite = false }: { afterWrite?: boolean } = {},
  ): Promise<
    { bytes: Buffer; content_type: string; width: number; height: number; organisation_id: string } | undefined
  > {
    const read = async (em: EntityManager) => {
      if (afterWrite) await sql(em, WAIT_FOR_WRITE, [analysisId]);
      const [blob] = await sql<{
        bytes: Buffer;
        content_type: string;
        width: number;
        height: number;
        organisation_id: string;
      }>(
        em,
        `select b.bytes, b.content_type, b.width, b.height, a.organisation_id
           from image_blobs b join analyses a on a.id = b.analysis_id
          where b.analysis_id = ?`,
        [analysisId],
      );
      return blob;
    };
    // The shared lock is transaction-scoped: it is let go with the read's own transaction.
    return afterWrite ? this.getEntityManager().transactional(read) : read(this.getEntityManager());
  }
}
