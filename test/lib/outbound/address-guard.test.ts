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

  it('checks the resolved address of a name, not just literal IPs', async () => {
    await assert.rejects(resolveOutbound('http://localhost:8080/x.png', false), { code: 'PRIVATE_ADDRESS' });
    await assert.rejects(resolveOutbound('http://[::1]/x.png', false), { code: 'PRIVATE_ADDRESS' });
    await assert.rejects(resolveOutbound('http://127.0.0.1/x.png', false), { code: 'PRIVATE_ADDRESS' });
    await assert.rejects(resolveOutbound('file:///etc/passwd', false), { code: 'INVALID_URL' });
    const allowed = await resolveOutbound('http://localhost:8080/x.png', true);
    assert.ok(['127.0.0.1', '::1'].includes(allowed.address));
  });
});
