import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** A real image host on loopback. Each width encodes a scenario for the scripted recognizer. */
export async function pngOfWidth(width: number, height = 60): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 180, b: 40 } } })
    .png()
    .toBuffer();
}

export type ImageHost = {
  url(path: string): string;
  hits: Map<string, number>;
  /** Lets a `held` route answer (every request to it so far and from now on). */
  release(path: string): void;
  close(): Promise<void>;
};

/**
 * `held`: the route answers only once the test calls `release(path)`. A test that must change a
 * row before the analysis reading this photo can end (point its callback at a plain-HTTP
 * receiver) holds the photo until it has: a fixed delay lost that race on a loaded host.
 */
export async function startImageHost(
  routes: Record<string, { status?: number; type?: string; body: Buffer | string; delayMs?: number; held?: boolean }>,
): Promise<ImageHost> {
  const hits = new Map<string, number>();
  const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
  for (const [path, route] of Object.entries(routes)) {
    if (!route.held) continue;
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    gates.set(path, { opened, open });
  }
  const server: Server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    if (route.delayMs) await new Promise((r) => setTimeout(r, route.delayMs));
    await gates.get(path)?.opened;
    res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'image/png' }).end(route.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    release(path) {
      const gate = gates.get(path);
      if (!gate) throw new Error(`${path} is not a held route`);
      gate.open();
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
