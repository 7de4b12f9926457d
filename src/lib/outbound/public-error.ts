import { OutboundAddressError } from './address-guard.js';

/**
 * What a client may read about a failed outbound request (a webhook attempt's `error`): what it can
 * act on, never an internal address, port, resolver answer or socket error text, so our network
 * cannot be mapped through it. The full error goes to the logs.
 */
export function publicOutboundError(err: unknown): string {
  if (err instanceof OutboundAddressError) {
    if (err.code === 'PRIVATE_ADDRESS')
      return 'The URL points to an address that is not allowed (a private or reserved network).';
    if (err.code === 'INVALID_URL') return 'The URL is not a valid http(s) URL.';
    return 'The host name could not be resolved.';
  }
  const e = err as { name?: string; code?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || /TIMEOUT/.test(code))
    return 'The endpoint did not answer in time.';
  if (/^(ERR_TLS|CERT_|UNABLE_TO_VERIFY|DEPTH_ZERO|SELF_SIGNED|ERR_SSL)/.test(code))
    return 'The TLS connection to the endpoint failed (certificate or handshake).';
  return 'The endpoint could not be reached.';
}
