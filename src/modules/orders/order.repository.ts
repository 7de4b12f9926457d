import { sql } from '../../db/sql.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Order } from './order.entity.js';

export class OrderRepository extends TenantRepository<Order> {
  /** The organisation's next order number, counted in its order_counters row (locked till commit). */
  async nextNumber(organisationId: string): Promise<{ last_number: number } | undefined> {
    const [counter] = await sql<{ last_number: number }>(
      this.getEntityManager(),
      `insert into order_counters (organisation_id, last_number) values (?, 1)
         on conflict (organisation_id) do update set last_number = order_counters.last_number + 1 returning last_number`,
      [organisationId],
    );
    return counter;
  }
}
