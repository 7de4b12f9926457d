import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** A raw HTTP/1.1 exchange: what a client whose request Node refuses before Koa gets back. */
function raw(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

describe("requests Node refuses before the app: answered in the API's error shape", () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });

  it('headers over 16 KiB (a long filter list in the query string): 431 REQUEST_HEADERS_TOO_LARGE', async () => {
    const brands = Array.from({ length: 2000 }, () => '😀').join(',');
    const res = await fetch(`${api.baseUrl}/api/v1/reports/share-of-shelf?brands=${encodeURIComponent(brands)}`);
    assert.equal(res.status, 431);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'REQUEST_HEADERS_TOO_LARGE');
    assert.match(body.error.message, /16 KiB/);
  });

  it('a request that is not HTTP (a control character in a header): 400 MALFORMED_REQUEST', async () => {
    const response = await raw(api.baseUrl, 'GET /api/v1/analyses HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n');
    assert.match(response, /^HTTP\/1\.1 400 /);
    assert.equal(bodyOf(response).error.code, 'MALFORMED_REQUEST');
  });
});
