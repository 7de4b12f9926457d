import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';

/** Work to run once the current transaction committed, keyed by the transaction itself. */
const pending = new WeakMap<object, (() => void)[]>();

/**
 * Runs `fn` after `em`'s transaction commits (at once outside a transaction; never if it rolls
 * back). For side effects that must count only committed work, such as metrics.
 */
export function afterCommit(em: EntityManager, fn: () => void): void {
  const trx = em.getTransactionContext() as object | undefined;
  if (!trx) return fn();
  const list = pending.get(trx);
  if (list) list.push(fn);
  else pending.set(trx, [fn]);
}

/** Registered on the ORM (orm-config.ts): runs or drops what `afterCommit` queued. */
export class AfterCommitSubscriber implements EventSubscriber {
  afterTransactionCommit({ transaction }: TransactionEventArgs): void {
    if (!transaction) return;
    const list = pending.get(transaction as object);
    pending.delete(transaction as object);
    for (const fn of list ?? []) fn();
  }

  afterTransactionRollback({ transaction }: TransactionEventArgs): void {
    if (transaction) pending.delete(transaction as object);
  }
}
