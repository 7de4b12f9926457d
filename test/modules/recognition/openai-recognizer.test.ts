import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { OpenAiRecognizer, type OpenAiRecognizerOptions } from '../../../src/modules/recognition/engines/openai-recognizer.js';
import { RecognitionRejectedError, type CatalogueEntry, type RecognizeInput } from '../../../src/modules/recognition/recognizer.js';
import { product } from '../../helpers/scripted-recognizer.js';

const API_KEY = 'sk-test-key';

type Reply =
  | { status?: number; json: unknown }
  /** Headers only when `headersOnly`, nothing at all otherwise: the request hangs. */
  | { hang: true; headersOnly?: boolean };

type ChatRequest = { headers: IncomingMessage['headers']; body: any };

/**
 * A real chat-completions endpoint on loopback. It refuses what a real one would (wrong path,
 * missing key), records each request and answers from the test's script, one reply per call.
 */
async function startChatApi(script: (req: ChatRequest, call: number) => Reply) {
  const requests: ChatRequest[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const send = (status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: { message: 'not found', type: 'invalid_request_error' } });
    if (req.headers.authorization !== `Bearer ${API_KEY}`) return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    const request = { headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
    requests.push(request);
    const reply = script(request, requests.length);
    if ('hang' in reply) {
      if (reply.headersOnly) res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
      return;
    }
    send(reply.status ?? 200, reply.json);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    baseURL,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function completion(message: { content?: string | null; refusal?: string | null }, finishReason = 'stop') {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'test-vision',
    choices: [{ index: 0, message: { role: 'assistant', content: message.content ?? null, refusal: message.refusal ?? null }, finish_reason: finishReason, logprobs: null }],
    usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
  };
}
const answer = (json: unknown) => completion({ content: typeof json === 'string' ? json : JSON.stringify(json) });

const catalogue: CatalogueEntry[] = [
  { sku: 'COLA-330', upc: '5449000000996', brand: 'Fizz', name: 'Classic Cola', category: 'beverages', subcategory: 'soft drinks', sizeValue: 330, sizeUnit: 'ml', expectedPrice: 1.29, currency: 'EUR' },
  { sku: 'CHIPS-150', upc: null, brand: 'Crunch', name: 'Sea Salt Chips', category: 'snacks', subcategory: null, sizeValue: null, sizeUnit: null, expectedPrice: null, currency: null },
];

const cola = product({
  brand: 'Fizz',
  description: 'Classic Cola',
  units: 4,
  upc: '5449000000996',
  sku: 'COLA-330',
  category: 'beverages',
  subcategory: 'soft drinks',
  price: 1.29,
  discountedPrice: 0.99,
  currency: 'EUR',
  onSale: true,
  confidenceScore: 0.92,
  shelfPosition: 'eye-level',
  shelfSection: 'left',
  fixtureType: 'fridge',
  sizeValue: 330,
  sizeUnit: 'ml',
});
const unknownChips = product({ brand: 'Crunch', units: 2, confidenceScore: 0.4, shelfPosition: 'bottom', shelfSection: 'right', fixtureType: 'shelf' });

describe('openai recognizer against a real chat-completions endpoint', () => {
  let png: Buffer;
  let input: RecognizeInput;
  before(async () => {
    png = await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
    input = { image: png, contentType: 'image/png', width: 32, height: 24, catalogue, runIndex: 0 };
  });

  const servers: { close(): Promise<void> }[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  async function setup(script: Parameters<typeof startChatApi>[0], opts: OpenAiRecognizerOptions = {}) {
    const api = await startChatApi(script);
    servers.push(api);
    const recognizer = new OpenAiRecognizer({ baseURL: api.baseURL, apiKey: API_KEY, model: 'test-vision', timeoutMs: 5_000, ...opts }, {});
    return { api, recognizer };
  }

  test('a valid answer is parsed exactly, from a request carrying the image, the schema and the catalogue', async () => {
    const { api, recognizer } = await setup(() => ({ json: answer({ products: [cola, unknownChips] }) }));
    assert.deepEqual(await recognizer.recognize(input), [cola, unknownChips]);

    assert.equal(api.requests.length, 1);
    const { body } = api.requests[0]!;
    assert.equal(body.model, 'test-vision');
    assert.equal(body.messages[0].role, 'system');
    assert.match(body.messages[0].content, /facings/);
    const parts: any[] = body.messages[1].content;
    const image = parts.find((p) => p.type === 'image_url');
    assert.equal(image.image_url.url, `data:image/png;base64,${png.toString('base64')}`);
    const text = parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
    assert.match(text, /"sku":"COLA-330"/);
    assert.match(text, /"sku":"CHIPS-150"/);
    assert.match(text, /"size":"330 ml"/);
    assert.equal(body.response_format.type, 'json_schema');
    assert.equal(body.response_format.json_schema.strict, true);
    const item = body.response_format.json_schema.schema.properties.products.items;
    assert.deepEqual(new Set(item.required), new Set(Object.keys(cola)));
    assert.equal(item.additionalProperties, false);
    assert.deepEqual(item.properties.shelfPosition.anyOf, [{ type: 'string', enum: ['top', 'eye-level', 'middle', 'bottom'] }, { type: 'null' }]);
    assert.deepEqual(item.properties.price.type, ['number', 'null']);
  });

  test('confidence is clamped to 0..1 and units to a whole number of at least 1, nothing else changes', async () => {
    const { recognizer } = await setup(() => ({
      json: answer({ products: [{ ...cola, confidenceScore: 1.4, units: 0 }, { ...unknownChips, confidenceScore: -0.2, units: 2.6 }] }),
    }));
    assert.deepEqual(await recognizer.recognize(input), [
      { ...cola, confidenceScore: 1, units: 1 },
      { ...unknownChips, confidenceScore: 0, units: 3 },
    ]);
  });

  test('an answer that is not JSON, or breaks the schema, is rejected for good', async () => {
    const replies = [
      answer('Here are the products: cola x4'),
      answer({ items: [] }),
      answer({ products: [{ ...cola, shelfPosition: 'upper' }] }),
      answer({ products: [{ ...cola, price: '1.29' }] }),
      answer({ products: [(({ brand: _, ...rest }) => rest)(cola)] }),
      completion({ content: null }),
      completion({ content: '{"products": [' }, 'length'),
      { unexpected: 'not a chat completion' },
    ];
    const { recognizer } = await setup((_, call) => ({ json: replies[call - 1] }));
    for (const [i] of replies.entries()) {
      await assert.rejects(recognizer.recognize(input), (err: Error) => {
        assert.ok(err instanceof RecognitionRejectedError, `reply ${i}: ${err}`);
        assert.match(err.message, /openai recognizer/);
        return true;
      });
    }
  });

  test('429 then success: the first call fails retryably, the caller retries and the second succeeds', async () => {
    const { api, recognizer } = await setup((_, call) =>
      call === 1 ? { status: 429, json: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } } : { json: answer({ products: [cola] }) },
    );
    await assert.rejects(recognizer.recognize(input), (err: Error) => {
      assert.ok(!(err instanceof RecognitionRejectedError), String(err));
      assert.match(err.message, /429/);
      return true;
    });
    // maxRetries 0: the SDK did not retry on its own.
    assert.equal(api.requests.length, 1);
    assert.deepEqual(await recognizer.recognize(input), [cola]);
    assert.equal(api.requests.length, 2);
  });

  test('5xx is retryable; 400 and a bad key are rejected for good', async () => {
    const statuses = [500, 503, 400];
    const { api, recognizer } = await setup((_, call) => ({ status: statuses[call - 1]!, json: { error: { message: `status ${statuses[call - 1]}` } } }));
    for (const status of [500, 503]) {
      await assert.rejects(recognizer.recognize(input), (err: Error) => !(err instanceof RecognitionRejectedError) && err.message.includes(String(status)));
    }
    await assert.rejects(recognizer.recognize(input), (err: Error) => err instanceof RecognitionRejectedError && err.message.includes('400'));

    const badKey = new OpenAiRecognizer({ baseURL: api.baseURL, apiKey: 'sk-wrong', model: 'test-vision' }, {});
    await assert.rejects(badKey.recognize(input), (err: Error) => err instanceof RecognitionRejectedError && err.message.includes('401'));
  });

  test('an endpoint that never answers fails retryably once timeoutMs has passed', async () => {
    const { recognizer } = await setup(() => ({ hang: true }), { timeoutMs: 300 });
    const started = Date.now();
    await assert.rejects(recognizer.recognize(input), (err: Error) => {
      assert.ok(!(err instanceof RecognitionRejectedError), String(err));
      assert.match(err.message, /within 300 ms/);
      return true;
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 250 && elapsed < 2_000, `failed after ${elapsed} ms`);
  });

  test('a body that stalls after the headers also times out', async () => {
    const { recognizer } = await setup(() => ({ hang: true, headersOnly: true }), { timeoutMs: 300 });
    const started = Date.now();
    await assert.rejects(recognizer.recognize(input), (err: Error) => !(err instanceof RecognitionRejectedError) && /within 300 ms/.test(err.message));
    assert.ok(Date.now() - started < 2_000);
  });

  test('a refusal, or a content-filtered answer, is rejected for good', async () => {
    const replies = [completion({ refusal: "I'm sorry, I can't help with that." }), completion({ content: '' }, 'content_filter')];
    const { recognizer } = await setup((_, call) => ({ json: replies[call - 1] }));
    await assert.rejects(recognizer.recognize(input), (err: Error) => err instanceof RecognitionRejectedError && /refused.*can't help/.test(err.message));
    await assert.rejects(recognizer.recognize(input), (err: Error) => err instanceof RecognitionRejectedError && /content filter/.test(err.message));
  });

  test("the caller's abort signal cancels the request with the caller's reason", async () => {
    const { recognizer } = await setup(() => ({ hang: true }));
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    await assert.rejects(recognizer.recognize({ ...input, signal: controller.signal }), (err) => err === reason);
    assert.ok(Date.now() - started < 2_000);
  });

  test('settings come from the environment, and the API key is required', () => {
    assert.throws(() => new OpenAiRecognizer({}, {}), /OPENAI_API_KEY is required/);
    assert.throws(() => new OpenAiRecognizer({}, { OPENAI_API_KEY: 'k', OPENAI_TIMEOUT_MS: 'soon' }), /OPENAI_TIMEOUT_MS/);
    const r = new OpenAiRecognizer({}, { OPENAI_API_KEY: 'k' });
    assert.equal(r.name, 'openai');
    assert.equal(r.model, 'gpt-4o-mini');
    assert.equal(new OpenAiRecognizer({}, { OPENAI_API_KEY: 'k', OPENAI_MODEL: 'gemini-2.5-flash' }).model, 'gemini-2.5-flash');
  });
});
