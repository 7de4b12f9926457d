import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * IPv6 can reach a host on the public internet only from the global unicast space (IANA's 2000::/3);
 * everything else is special: ::/8 (unspecified, loopback, IPv4-compatible ::a.b.c.d), 100::/64
 * (discard), 5f00::/16 (segment routing), fc00::/7, fe80::/10, fec0::/10 (site-local), ff00::/8.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** NAT64's well-known prefix (RFC 6052): the gateway connects to the IPv4 address in the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

export class OutboundAddressError extends Error {
  constructor(
    readonly code: 'PRIVATE_ADDRESS' | 'DNS_FAILED' | 'INVALID_URL',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundAddressError';
  }
}

/**
 * Whether an outbound request may go to this address (SSRF defence): only what ipaddr.js calls
 * `unicast`, i.e. in none of the special-purpose ranges it knows, an allow-list, so a range it
 * names that we did not list (site-local fec0::/10 was one) is refused too. An IPv4-mapped address
 * (::ffff:a.b.c.d) is judged as the IPv4 address the socket really goes to, and so is one under
 * NAT64's well-known prefix (64:ff9b::a.b.c.d, what DNS64 answers on an IPv6-only network). Other
 * IPv6 addresses must also lie in 2000::/3, which leaves out the IPv4-compatible ::a.b.c.d
 * (deprecated, RFC 4291) and every range outside the global space that ipaddr.js calls unicast.
 * 6to4 (2002::/16, deprecated by RFC 7526), Teredo and NAT64's local-use prefix (64:ff9b:1::/48)
 * are refused whatever IPv4 address they embed: relays and local gateways decide where they lead.
 */
export function isPublicAddress(address: string): boolean {
  // process() unmaps ::ffff:a.b.c.d to a.b.c.d.
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(NAT64_WELL_KNOWN)) {
    const bytes = v6.toByteArray();
    return new ipaddr.IPv4(bytes.slice(12)).range() === 'unicast';
  }
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast';
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
