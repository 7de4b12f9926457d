import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { headers: IncomingHttpHeaders; raw: string; at: number; status: number };

/** A real webhook receiver on loopback. `respond` picks each answer's status (and headers). */
export async function startReceiver(
  respond: (
    r: Omit<Received, 'status'>,
    n: number,
  ) => number | { status: number; headers?: Record<string, string> } = () => 200,
) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, raw: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const answer = respond(r, received.length + 1);
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      received.push({ ...r, status });
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
