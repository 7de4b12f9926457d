import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { apiRoutes } from '../../src/http/routes.js';
import type { Commands } from '../../src/commands.js';
import type { Services } from '../../src/services.js';

/** Where the TypeScript client keeps its generated types (committed; a test checks they are current). */
export const CLIENT_SCHEMA_PATH = 'clients/typescript/src/generated/schema.ts';

/**
 * The OpenAPI document the API serves at /api/v1/openapi.json, built without a running service: the
 * routes use their services only inside handlers, and no handler runs here.
 */
export function offlineOpenApiDocument() {
  return buildOpenApiDocument(apiRoutes({} as Services, {} as Commands));
}

/** openapi-typescript's types for that document, as the text of the committed schema file. */
export async function clientSchemaSource(): Promise<string> {
  const ast = await openapiTS(offlineOpenApiDocument() as never, { silent: true });
  return `${COMMENT_HEADER.replace(
    ' */',
    ' * Regenerate with `npm run client:generate` (from src/http/openapi.ts, no server needed).\n */',
  )}${astToString(ast)}`;
}
