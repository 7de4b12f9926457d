import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { createServices } from '../../../src/services.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg } from '../../helpers/fixtures.js';

describe('an organisation never loses its last owner', () => {
  let api: TestApi;

  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('two owners demoting (or removing) each other at once: one stays owner, the other change is a 409', async () => {
    for (let round = 0; round < 5; round++) {
      const org = await createTestOrg(api.runtime);
      const s = createServices(api.runtime.orm.em.fork());
      const a = await s.members.add(org.id, { email: `a${round}@shop.example`, name: 'A', role: 'owner' });
      const b = await s.members.add(org.id, { email: `b${round}@shop.example`, name: 'B', role: 'owner' });
      const [x, y] =
        round % 2 === 0
          ? await Promise.all([
              api.request('PATCH', `/members/${a.id}`, { key: org.keys.admin, body: { role: 'member' } }),
              api.request('PATCH', `/members/${b.id}`, { key: org.keys.admin, body: { role: 'member' } }),
            ])
          : await Promise.all([
              api.request('DELETE', `/members/${a.id}`, { key: org.keys.admin }),
              api.request('DELETE', `/members/${b.id}`, { key: org.keys.admin }),
            ]);
      assert.deepEqual([x!.status, y!.status].sort(), [200, 409], `round ${round}`);
      const [owners] = await sql<{ n: number }>(
        api.runtime.orm.em.fork(),
        `select count(*)::int as n from users where organisation_id = ? and role = 'owner'`,
        [org.id],
      );
      assert.equal(owners!.n, 1, `round ${round}: exactly one owner left`);
    }
  });
});
