import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress, resolveOutbound } from '../../../src/lib/outbound/address-guard.js';

describe('outbound address guard', () => {
  it('refuses private, loopback, link-local, metadata and mapped addresses', () => {
    for (const a of [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      'fc00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ]) {
      assert.equal(isPublicAddress(a), false, a);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) assert.equal(isPublicAddress(a), true, a);
  });

  it('allows only unicast: every special-purpose range is refused, named in our code or not (issue 36)', () => {
    for (const a of [
      // IPv6 ranges the old deny-list missed
      'fec0::1', // site-local (deprecated, RFC 3879): ipaddr.js calls it deprecatedSiteLocal
      '::7f00:1', // IPv4-compatible ::127.0.0.1 (deprecated, RFC 4291): ipaddr.js calls it unicast
      '::a00:1', // IPv4-compatible ::10.0.0.1
      '::808:808', // IPv4-compatible, even around a public IPv4 address
      '100::1', // discard (RFC 6666)
      '5f00::1', // segment routing (RFC 9602)
      '3fff::1', // documentation (RFC 9637)
      '2001:db8::1', // documentation
      '2001:20::1', // ORCHIDv2
      '::ffff:0:a00:1', // IPv4-translated (RFC 6145)
      '1::1', // outside 2000::/3, unassigned
      'ff02::1', // multicast
      '::', // unspecified
      // IPv4 ranges
      '192.0.2.1', // documentation
      '198.18.0.1', // benchmarking
      '240.0.0.1', // reserved
      '255.255.255.255',
      '192.0.0.8',
      // NAT64's well-known prefix around a non-public IPv4 address
      '64:ff9b::a00:1', // 10.0.0.1
      '64:ff9b::7f00:1', // 127.0.0.1
      '64:ff9b::a9fe:a9fe', // 169.254.169.254
      // NAT64's local-use prefix, 6to4 and Teredo: refused whatever they embed
      '64:ff9b:1::808:808',
      '2002:a00:1::1', // 6to4 of 10.0.0.1
      '2002:808:808::1', // 6to4 of 8.8.8.8
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      // IPv4-mapped, in both notations
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:100.64.0.1',
    ]) {
      assert.equal(isPublicAddress(a), false, a);
    }
    for (const a of [
      '1.1.1.1',
      '2a00:1450:4009:81f::200e',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8', // mapped: judged as 8.8.8.8
      '64:ff9b::808:808', // DNS64's answer for 8.8.8.8 on an IPv6-only network
    ])
      assert.equal(isPublicAddress(a), true, a);
  });

  it('refuses the special IPv6 literals in URLs, and ALLOW_PRIVATE_NETWORK_FETCH still admits them', async () => {
    for (const host of ['[fec0::1]', '[::7f00:1]', '[100::1]', '[5f00::1]', '[64:ff9b::a00:1]', '[2002:a00:1::1]']) {
      await assert.rejects(resolveOutbound(`http://${host}/x.png`, false), { code: 'PRIVATE_ADDRESS' }, host);
      const allowed = await resolveOutbound(`http://${host}/x.png`, true);
      assert.equal(allowed.family, 6, host);
    }
  });

  it('checks the resolved address of a name, not just literal IPs', async () => {
    await assert.rejects(resolveOutbound('http://localhost:8080/x.png', false), { code: 'PRIVATE_ADDRESS' });
    await assert.rejects(resolveOutbound('http://[::1]/x.png', false), { code: 'PRIVATE_ADDRESS' });
    await assert.rejects(resolveOutbound('http://127.0.0.1/x.png', false), { code: 'PRIVATE_ADDRESS' });
    await assert.rejects(resolveOutbound('file:///etc/passwd', false), { code: 'INVALID_URL' });
    const allowed = await resolveOutbound('http://localhost:8080/x.png', true);
    assert.ok(['127.0.0.1', '::1'].includes(allowed.address));
  });
});
