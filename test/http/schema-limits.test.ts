import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EntityMetadata, EntityProperty } from '@mikro-orm/core';
import { z } from 'zod';
import { initORM, type Orm } from '../../src/db/orm.js';
import { apiRoutes } from '../../src/http/routes.js';
import type { Services } from '../../src/services.js';
import type { Commands } from '../../src/commands.js';

/**
 * Which table each request body writes to, by operation; nested arrays name their own entity.
 * Every route with a body must be listed, so a new route cannot skip the check.
 */
const WRITES: Record<string, { entity: string | null; nested?: Record<string, string> }> = {
  createProject: { entity: 'Project' },
  createPlace: { entity: 'Place' },
  updatePlace: { entity: 'Place' },
  createInventoryItem: { entity: 'InventoryItem' },
  updateInventoryItem: { entity: 'InventoryItem' },
  bulkUpsertInventory: { entity: null, nested: { items: 'InventoryItem' } },
  createAnalysis: { entity: 'Analysis' },
  createAnalysisBatch: { entity: 'Analysis', nested: { images: 'Analysis' } },
  createWebhook: { entity: 'Webhook' },
  updateWebhook: { entity: 'Webhook' },
  createTask: { entity: 'Task' },
  updateTask: { entity: 'Task' },
  updateAlert: { entity: 'Alert' },
  createAccount: { entity: 'Account' },
  updateAccount: { entity: 'Account' },
  createOrder: { entity: 'Order', nested: { items: 'OrderLine' } },
  updateOrder: { entity: 'Order', nested: { items: 'OrderLine' } },
  inviteMember: { entity: 'Invitation' },
  updateMember: { entity: 'User' },
  createApiKey: { entity: 'ApiKey' },
  rotateApiKey: { entity: null },
  // Console sign-in: the e-mail address and password are looked up and verified, never stored as sent
  // (the password as its argon2id hash); an invitation link's name becomes the member's.
  signIn: { entity: null },
  inspectMemberLink: { entity: null },
  redeemMemberLink: { entity: 'User' },
  // Both passwords are verified or hashed, never stored as sent.
  changePassword: { entity: null },
};

type JsonSchema = {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  maxLength?: number;
  maxItems?: number;
  maximum?: number;
  exclusiveMaximum?: number;
  minimum?: number;
  enum?: unknown[];
  format?: string;
  pattern?: string;
};

function resolve(s: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  if (s.$ref) return resolve(defs[s.$ref.replace('#/$defs/', '')]!, defs);
  // Nullable and optional wrappers become anyOf [x, null].
  if (s.anyOf) {
    const real = s.anyOf.filter((a) => a.type !== 'null').map((a) => resolve(a, defs));
    if (real.length === 1) return real[0]!;
  }
  return s;
}

function columnType(prop: EntityProperty): string {
  return (prop.columnTypes?.[0] ?? '').toLowerCase();
}

/** Every way a request value could not fit the column it is stored in. */
function misfits(field: string, s: JsonSchema, prop: EntityProperty | undefined): string[] {
  const out: string[] = [];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'string' && !s.enum && s.format !== 'date' && s.format !== 'date-time') {
    if (s.maxLength === undefined) out.push(`${field}: a string without maxLength`);
    const varchar = prop && /^varchar\((\d+)\)$/.exec(columnType(prop));
    if (varchar && s.maxLength !== undefined && s.maxLength > Number(varchar[1]))
      out.push(`${field}: maxLength ${s.maxLength} > ${columnType(prop!)}`);
  }
  if (type === 'string' && s.enum && prop) {
    const varchar = /^varchar\((\d+)\)$/.exec(columnType(prop));
    for (const v of s.enum)
      if (varchar && String(v).length > Number(varchar[1]))
        out.push(`${field}: enum value ${v} longer than ${columnType(prop)}`);
  }
  if (type === 'number' || type === 'integer') {
    const max = s.maximum ?? s.exclusiveMaximum;
    if (max === undefined) out.push(`${field}: a number without maximum`);
    const numeric = prop && /^numeric\((\d+),(\d+)\)$/.exec(columnType(prop));
    if (numeric && max !== undefined && max >= 10 ** (Number(numeric[1]) - Number(numeric[2])))
      out.push(`${field}: maximum ${max} does not fit ${columnType(prop!)}`);
    if (numeric && (s.minimum ?? 0) <= -(10 ** (Number(numeric[1]) - Number(numeric[2]))))
      out.push(`${field}: minimum ${s.minimum} does not fit ${columnType(prop!)}`);
    if (prop && /^int/.test(columnType(prop)) && max !== undefined && max > 2_147_483_647)
      out.push(`${field}: maximum ${max} does not fit int`);
  }
  if (type === 'array' && s.maxItems === undefined) out.push(`${field}: an array without maxItems`);
  return out;
}

describe('request schemas fit the columns they are stored in', () => {
  let orm: Orm;
  before(async () => {
    orm = await initORM(process.env.DATABASE_URL!);
  });
  after(async () => {
    await orm.close();
  });

  it('every request field is bounded, and no bound exceeds its column (read from the entity metadata)', () => {
    const metas = new Map(Object.values(orm.getMetadata().getAll()).map((m: EntityMetadata) => [m.className, m]));
    const problems: string[] = [];
    for (const route of apiRoutes({} as Services, {} as Commands)) {
      if (!route.body) continue;
      const mapping = WRITES[route.operationId];
      if (!mapping) {
        problems.push(`${route.operationId}: add it to WRITES with the entity its body is stored in`);
        continue;
      }
      const root = z.toJSONSchema(route.body, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
      const defs = root.$defs ?? {};
      const walk = (schema: JsonSchema, entity: string | null, prefix: string) => {
        const s = resolve(schema, defs);
        const meta = entity ? metas.get(entity) : undefined;
        assert.ok(!entity || meta, `no entity ${entity}`);
        for (const [name, raw] of Object.entries(s.properties ?? {})) {
          const field = resolve(raw, defs);
          const path = `${route.operationId} ${prefix}${name}`;
          problems.push(...misfits(path, field, meta?.properties[name as never] as EntityProperty | undefined));
          const nested = mapping.nested?.[name];
          if (field.type === 'array' && field.items) {
            const item = resolve(field.items, defs);
            if (item.type === 'object') walk(item, nested ?? null, `${prefix}${name}[].`);
            else problems.push(...misfits(`${path}[]`, item, undefined));
          } else if (field.type === 'object' && field.properties) walk(field, null, `${prefix}${name}.`);
        }
      };
      walk(root, mapping.entity, '');
    }
    assert.deepEqual(problems, []);
  });
});
