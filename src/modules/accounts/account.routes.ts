import { dataEnvelope, defineRoute, deletedSchema, idParams, listEnvelope } from '../../http/route.js';
import type { AccountService } from './account.service.js';
import {
  accountSchema,
  createAccountBody,
  listAccountsQuery,
  serializeAccount,
  updateAccountBody,
} from './account.schemas.js';

const params = idParams('acc_01jdq3x4v6m8c9a1b2c3d4e5f6');

export function accountRoutes(accounts: AccountService) {
  return [
    defineRoute({
      method: 'post',
      path: '/accounts',
      operationId: 'createAccount',
      summary: 'Create a brand, supplier, distributor or partner account',
      tag: 'Accounts',
      body: createAccountBody,
      status: 201,
      response: dataEnvelope(accountSchema),
      handler: async ({ auth, body }) => ({
        status: 201,
        body: { data: serializeAccount(await accounts.create(auth.organisationId, body)) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/accounts',
      operationId: 'listAccounts',
      summary: 'List accounts',
      tag: 'Accounts',
      query: listAccountsQuery,
      status: 200,
      response: listEnvelope(accountSchema),
      handler: async ({ auth, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await accounts.list(auth.organisationId, filters, { cursor, limit });
        return { body: { data: page.items.map(serializeAccount), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/accounts/{id}',
      operationId: 'getAccount',
      summary: 'Get an account',
      tag: 'Accounts',
      params,
      status: 200,
      response: dataEnvelope(accountSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => ({
        body: { data: serializeAccount(await accounts.get(auth.organisationId, params.id)) },
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/accounts/{id}',
      operationId: 'updateAccount',
      summary: 'Update an account',
      tag: 'Accounts',
      params,
      body: updateAccountBody,
      status: 200,
      response: dataEnvelope(accountSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params, body }) => ({
        body: { data: serializeAccount(await accounts.update(auth.organisationId, params.id, body)) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/accounts/{id}',
      operationId: 'deleteAccount',
      summary: 'Delete an account',
      tag: 'Accounts',
      params,
      status: 200,
      response: dataEnvelope(deletedSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        await accounts.delete(auth.organisationId, params.id);
        return { body: { data: { id: params.id, deleted: true } } };
      },
    }),
  ];
}
