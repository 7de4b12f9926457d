// What the soak puts on loopback in place of the outside world: the photos' host, a vision model
// speaking the OpenAI chat-completions protocol, and the clients' webhook endpoints.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answer, API_KEY, startChatApi } from '../../test/helpers/openai-chat-api.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../test/helpers/image-host.js';
import { product } from '../../test/helpers/scripted-recognizer.js';
import type { Random } from './random.js';

/** The products the model sees on every photo: each completed analysis stores exactly these. */
export const SHELF_PRODUCTS = [
  product({ brand: 'Fizz', description: 'Classic Cola 330ml', units: 4, price: 1.29, currency: 'GBP' }),
  product({ brand: 'Crunch', description: 'Sea Salt Chips 150g', units: 3, price: 2.1, currency: 'GBP' }),
  product({ brand: 'Heinz', description: 'Baked Beans 415g', units: 6, price: 0.95, currency: 'GBP' }),
];

export type ImageKind = 'ok' | 'missing' | 'broken';

/** Photos that decode, plus the two ways a client's image fails: 404, and bytes that are no image. */
export async function startPhotoHost(): Promise<{ host: ImageHost; url(i: number, kind: ImageKind): string }> {
  const routes: Parameters<typeof startImageHost>[0] = {
    '/broken.png': { body: 'these bytes are not a PNG', type: 'image/png' },
  };
  for (let w = 0; w < 6; w++) routes[`/shelf-${w}.png`] = { body: await pngOfWidth(160 + 16 * w, 120) };
  const host = await startImageHost(routes);
  return {
    host,
    // The query makes every analysis' URL its own (the host routes on the path).
    url: (i, kind) =>
      kind === 'ok'
        ? host.url(`/shelf-${i % 6}.png?n=${i}`)
        : kind === 'broken'
          ? host.url(`/broken.png?n=${i}`)
          : host.url(`/gone-${i}.png`),
  };
}

export async function startVisionModel() {
  const api = await startChatApi(() => ({ json: answer({ products: SHELF_PRODUCTS }) }));
  return { ...api, apiKey: API_KEY };
}

export type Receipt = {
  endpoint: number;
  deliveryId: string;
  event: string;
  analysisId: string;
  status: number;
};

/**
 * The clients' endpoints: /hook/<n>. One attempt in `failEvery` (drawn from the seeded generator)
 * is answered 500; every request is recorded with its X-Service-Delivery id and our answer.
 */
export async function startReceiver(random: Random, failShare: number) {
  const receipts: Receipt[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const endpoint = Number(/^\/hook\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
      let body: { event?: string; data?: { id?: string } } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        // recorded with empty fields: the checks report it
      }
      const status = endpoint < 0 ? 404 : random.next() < failShare ? 500 : 200;
      receipts.push({
        endpoint,
        deliveryId: String(req.headers['x-service-delivery'] ?? ''),
        event: body.event ?? '',
        analysisId: body.data?.id ?? '',
        status,
      });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try again');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    receipts,
    url: (endpoint: number) => `http://127.0.0.1:${port}/hook/${endpoint}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
