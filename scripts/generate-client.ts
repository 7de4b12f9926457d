// `npm run client:generate`: rewrites the TypeScript client's types from the OpenAPI document the
// code builds (the same one /api/v1/openapi.json serves), with openapi-typescript. No server needed.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CLIENT_SCHEMA_PATH, clientSchemaSource } from './lib/client-schema.js';

const path = resolve(import.meta.dirname, '..', CLIENT_SCHEMA_PATH);
await writeFile(path, await clientSchemaSource());
console.log(`client types: ${path}`);
