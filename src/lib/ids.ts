import { monotonicFactory } from 'ulid';

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
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ulid = monotonicFactory();

/**
 * Prefix + lowercase ULID: sortable by creation time (keyset pagination relies on it) and URL-safe.
 */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid().toLowerCase()}`;
}

export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9a-hjkmnp-tv-z]{26}$`);
}
