import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

export const ID_PREFIXES = {
  analysis: 'an',
  batch: 'bat',
  inventoryItem: 'inv',
  place: 'pl',
  task: 'tsk',
  user: 'usr',
  project: 'prj',
  webhook: 'wh',
  delivery: 'dlv',
  event: 'evt',
  order: 'ord',
  orderLine: 'orl',
  account: 'acc',
  alert: 'alr',
  product: 'prd',
  apiKey: 'key',
  organisation: 'org',
  invitation: 'mbi',
  creditEntry: 'cre',
  session: 'ses',
  memberLink: 'mbl',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * The ULID's random characters from a pooled CSPRNG buffer. ulid's default asks the system's
 * `crypto.getRandomValues` for one byte per character, 16 calls an id: on the submission path that
 * was 2-3 % of the API's CPU (bench:api profile). A byte / 256 is uniform over the 32 characters.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomFraction(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]! / 256;
}

const ulid = monotonicFactory(randomFraction);

/**
 * Prefix + lowercase ULID: sortable by creation time (keyset pagination relies on it) and URL-safe.
 */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid().toLowerCase()}`;
}

export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9a-hjkmnp-tv-z]{26}$`);
}

/**
 * The smallest id of `kind` made at or after `time`: ids sort by creation time (their ULID starts
 * with it), so "created since T" is `id >= idAt(kind, T)`, a range of the (organisation, id) index.
 */
export function idAt(kind: IdKind, time: Date): string {
  const ms = Math.min(Math.max(0, time.getTime()), 2 ** 48 - 1);
  return `${ID_PREFIXES[kind]}_${encodeTime(ms, 10).toLowerCase()}0000000000000000`;
}
