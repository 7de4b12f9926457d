import { z } from 'zod';
import { ValidationError } from './errors.js';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export function limitParam(defaultLimit = DEFAULT_LIMIT) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .default(defaultLimit)
    .meta({ description: `Page size, 1 to ${MAX_LIMIT}.` });
}

export const cursorParam = z.string().max(200).optional().meta({ description: 'Opaque cursor from a previous page.' });

export type Page = { cursor?: string; limit: number };
export type Pagination = { cursor: string | null; hasMore: boolean };

/**
 * Cursors are keyset positions (the last id seen, newest first). Ids are time-sortable and unique,
 * so pages have no gaps or repeats while rows are inserted concurrently.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ k: lastId }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k?: unknown };
    // An id's alphabet only: anything else (a NUL, which PostgreSQL refuses) was never one of ours.
    if (typeof parsed.k === 'string' && parsed.k.length < 100 && /^[a-z]+_[0-9a-z]+$/.test(parsed.k)) return parsed.k;
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError('Invalid query: cursor: Not a cursor returned by this API.', [
    { field: 'query.cursor', message: 'Not a cursor returned by this API.' },
  ]);
}

/** Turns a fetched page of limit+1 rows into the response items and pagination block. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): { items: T[]; pagination: Pagination } {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return { items, pagination: { cursor: hasMore && last ? encodeCursor(last.id) : null, hasMore } };
}
