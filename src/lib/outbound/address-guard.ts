import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Ranges an outbound request must never reach unless an operator allows it (SSRF defence). */
const BLOCKED_RANGES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'carrierGradeNat',
  'private',
  'reserved',
  'uniqueLocal',
  'ipv4Mapped',
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
  'benchmarking',
  'amt',
  'as112',
  'deprecated',
  'orchid2',
]);

export class OutboundAddressError extends Error {
  constructor(
    readonly code: 'PRIVATE_ADDRESS' | 'DNS_FAILED' | 'INVALID_URL',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundAddressError';
  }
}

export function isPublicAddress(address: string): boolean {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return !BLOCKED_RANGES.has(parsed.range());
}

export type ResolvedTarget = { url: URL; address: string; family: 4 | 6 };

/**
 * Resolves the host once and checks every address it maps to; the caller then connects to the
 * returned address only, so a second DNS answer cannot rebind the request to an internal host.
 */
export async function resolveOutbound(rawUrl: string | URL, allowPrivate: boolean): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new OutboundAddressError('INVALID_URL', `Not a URL: ${String(rawUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundAddressError('INVALID_URL', `Unsupported scheme ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (err) {
      throw new OutboundAddressError(
        'DNS_FAILED',
        `Could not resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? err}`,
      );
    }
  }
  if (addresses.length === 0) throw new OutboundAddressError('DNS_FAILED', `No address for ${host}`);
  if (!allowPrivate) {
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked)
      throw new OutboundAddressError(
        'PRIVATE_ADDRESS',
        `${host} resolves to a non-public address (${blocked.address})`,
      );
  }
  const chosen = addresses[0]!;
  return { url, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}
