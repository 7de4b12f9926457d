import protos from '@temporalio/proto';

const proto = protos.temporal;
import { SEARCH_ATTRIBUTE_NAMES } from './contracts/search-attributes.js';
import type { TemporalHandle } from './client.js';

/** Registers our custom search attributes on a server that lacks them (the dev server gets them at start). */
export async function ensureSearchAttributes(handle: TemporalHandle, namespace: string): Promise<string[]> {
  const existing = await handle.connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTE_NAMES.filter((n) => !(n in (existing.customAttributes ?? {})));
  if (missing.length === 0) return [];
  await handle.connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((n) => [n, proto.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  return missing;
}
