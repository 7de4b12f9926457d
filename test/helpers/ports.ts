import { createServer } from 'node:net';

/** A loopback port nothing listens on right now: the system's pick for a listener on port 0, closed again. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}
