export { createClient } from './client.js';
export type { Analysis, Body, ListItem, ListParams, ListPath, ShelfClient, ShelfClientOptions } from './client.js';
export { ShelfApiError, ShelfTimeoutError, type ApiErrorBody } from './errors.js';
export type { RetryOptions } from './retry.js';
export type { components, operations, paths } from './generated/schema.js';
