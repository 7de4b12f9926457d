// What the soak puts on loopback in place of the outside world: the photos' host, a vision model
// speaking the OpenAI chat-completions protocol, and the clients' webhook endpoints.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
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

export type PhotoHost = {
  host: ImageHost;
  url(i: number, kind: ImageKind): string;
  /** Which photo analysis `i` is given (its path), so the checks can compare analyses of one photo. */
  photo(i: number): string;
};

/**
 * Photos that decode, plus the two ways a client's image fails: 404, and bytes that are no image.
 * `shelves` (a directory of JPEGs, for the local recognizer, which reads them for real): those
 * photos; otherwise small plain PNGs (the stand-in model answers the same whatever it is shown).
 */
export async function startPhotoHost(shelves?: string): Promise<PhotoHost> {
  const routes: Parameters<typeof startImageHost>[0] = {
    '/broken.png': { body: 'these bytes are not a PNG', type: 'image/png' },
  };
  const paths: string[] = [];
  if (shelves) {
    for (const file of readdirSync(shelves)
      .filter((f) => f.endsWith('.jpg'))
      .sort()) {
      routes[`/${file}`] = { body: readFileSync(join(shelves, file)), type: 'image/jpeg' };
      paths.push(`/${file}`);
    }
    if (paths.length === 0) throw new Error(`no .jpg photos in ${shelves}`);
  } else
    for (let w = 0; w < 6; w++) {
      routes[`/shelf-${w}.png`] = { body: await pngOfWidth(160 + 16 * w, 120) };
      paths.push(`/shelf-${w}.png`);
    }
  const host = await startImageHost(routes);
  const photo = (i: number) => paths[i % paths.length]!;
  return {
    host,
    photo,
    // The query makes every analysis' URL its own (the host routes on the path).
    url: (i, kind) =>
      kind === 'ok'
        ? host.url(`${photo(i)}?n=${i}`)
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
  /** The X-Service-Delivery header: what receivers de-duplicate on. */
  deliveryId: string;
  /** The `deliveryId` the signed body carries: must be the header's. */
  bodyDeliveryId: string;
  event: string;
  analysisId: string;
  status: number;
  /** When the answer was written (epoch ms, this machine's clock, as PostgreSQL's now() is). */
  at: number;
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
      let body: { event?: string; data?: { id?: string }; deliveryId?: string } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        // recorded with empty fields: the checks report it
      }
      const status = endpoint < 0 ? 404 : random.next() < failShare ? 500 : 200;
      receipts.push({
        endpoint,
        deliveryId: String(req.headers['x-service-delivery'] ?? ''),
        bodyDeliveryId: body.deliveryId ?? '',
        event: body.event ?? '',
        analysisId: body.data?.id ?? '',
        status,
        at: Date.now(),
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
