import type { EntityManager } from '@mikro-orm/postgresql';
import { CreditEntry } from './credit-entry.entity.js';
import type { Balance, CreditLedger, CreditPool } from './credit-ledger.repository.js';

export { EXPIRED_REFUND_NOTE, type Balance, type CreditPool } from './credit-ledger.repository.js';

/** The ledger of `em`'s transaction: CreditEntry's repository (credit-ledger.repository.ts). */
const ledger = (em: EntityManager) => em.getRepository<CreditEntry, CreditLedger>(CreditEntry);

/**
 * Credits for the other modules. Every movement of credits is the ledger's (CreditLedger): this is
 * where a caller's transaction meets it.
 */
export class CreditService {
  constructor(private readonly em: EntityManager) {}

  /** Adds credits to a pool and writes the ledger row in the same transaction. */
  async grant(organisationId: string, amount: number, pool: CreditPool, note?: string): Promise<Balance> {
    return this.em.transactional((em) => ledger(em).grant(organisationId, amount, pool, note));
  }

  /** CreditLedger.consume in the caller's transaction: all or nothing. */
  consume(em: EntityManager, organisationId: string, analysisIds: string[], attempt = 0): Promise<Balance> {
    return ledger(em).consume(organisationId, analysisIds, attempt);
  }

  /** CreditLedger.consumeEach in the caller's transaction: one credit for each while they last. */
  consumeEach(
    em: EntityManager,
    organisationId: string,
    analysisIds: string[],
  ): Promise<{ taken: number; balance: Balance }> {
    return ledger(em).consumeEach(organisationId, analysisIds);
  }

  /** CreditLedger.refund in the caller's transaction. Returns whether a credit was given back. */
  refund(em: EntityManager, analysisId: string): Promise<boolean> {
    return ledger(em).refund(analysisId);
  }

  async balance(organisationId: string): Promise<Balance> {
    return ledger(this.em).balance(organisationId);
  }

  /** Charges since `since` (a plan period's start) not refunded. */
  usedSince(organisationId: string, since: Date): Promise<number> {
    return ledger(this.em).usedSince(organisationId, since);
  }
}
