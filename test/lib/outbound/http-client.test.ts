import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { resolveOutbound } from '../../../src/lib/outbound/address-guard.js';
import { outboundRequest } from '../../../src/lib/outbound/http-client.js';

describe('outbound HTTP client', () => {
  let connections = 0;
  /** The loopback address each request arrived on, by the host it was sent to (?to=). */
  const arrivals: { to: string; at: string }[] = [];
  const server: Server = createServer((req, res) => {
    const at = req.socket.localAddress!.replace(/^::ffff:/, '');
    arrivals.push({ to: new URL(req.url!, 'http://x').searchParams.get('to')!, at });
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  server.on('connection', () => connections++);
  let port: number;
  before(async () => {
    // On every address, IPv4 and IPv6, so one port answers as 127.0.0.1, 127.0.0.2 and localhost.
    await new Promise<void>((r) => server.listen(0, '::', r));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const post = (host: string, timeoutMs = 5_000) =>
    outboundRequest(`http://${host}:${port}/hook?to=${host}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"n":1}',
      timeoutMs,
      maxBytes: 1_000,
      onOversize: 'truncate',
      allowPrivate: true,
    });

  it('keeps its connections: ten requests to one receiver, one after the other, open one or two', async () => {
    const before = connections;
    for (let i = 0; i < 10; i++) assert.equal((await post('127.0.0.1')).status, 200);
    // One, or two when the next request leaves before undici has taken the first connection back.
    assert.ok(connections - before <= 2, `${connections - before} connections for 10 requests`);
  });

  it('connects a name to the address the guard checked for it, not through an agent kept for another address', async () => {
    // A kept agent answers every name it is asked for with the address it was made for: one made for
    // 127.0.0.2 must not serve localhost (a name whose DNS may move is where pinning matters).
    const checked = (await resolveOutbound(`http://localhost:${port}/`, true)).address;
    arrivals.length = 0;
    // Its own timeout, so no agent of the test before is among those it finds (agents are kept per timeout too).
    for (let i = 0; i < 3; i++) for (const host of ['127.0.0.2', 'localhost']) await post(host, 4_000);
    assert.deepEqual(
      arrivals.map((a) => a.at),
      ['127.0.0.2', checked, '127.0.0.2', checked, '127.0.0.2', checked],
    );
  });
});
