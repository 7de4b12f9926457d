import { defineEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/** Columns shared by every tenant-owned table. Ids are generated in services, never by the database. */
export const tenantProperties = {
  id: p.string().primary(),
  organisationId: p.string(),
  createdAt: p.datetime().onCreate(() => new Date()),
  updatedAt: p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date()),
};
