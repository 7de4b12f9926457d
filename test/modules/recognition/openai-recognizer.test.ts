import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  OpenAiRecognizer,
  type OpenAiRecognizerOptions,
} from '../../../src/modules/recognition/engines/openai-recognizer.js';
import {
  RecognitionRejectedError,
  type CatalogueEntry,
  type RecognizeInput,
} from '../../../src/modules/recognition/recognizer.js';
import { answer, API_KEY, completion, startChatApi } from '../../helpers/openai-chat-api.js';
import { product } from '../../helpers/scripted-recognizer.js';

const catalogue: CatalogueEntry[] = [
  {
    sku: 'COLA-330',
    upc: '5449000000996',
    brand: 'Fizz',
    name: 'Classic Cola',
    category: 'beverages',
    subcategory: 'soft drinks',
    sizeValue: 330,
    sizeUnit: 'ml',
    expectedPrice: 1.29,
    currency: 'EUR',
  },
  {
    sku: 'CHIPS-150',
    upc: null,
    brand: 'Crunch',
    name: 'Sea Salt Chips',
    category: 'snacks',
    subcategory: null,
    sizeValue: null,
    sizeUnit: null,
    expectedPrice: null,
    currency: null,
  },
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
const unknownChips = product({
  brand: 'Crunch',
  units: 2,
  confidenceScore: 0.4,
  shelfPosition: 'bottom',
  shelfSection: 'right',
  fixtureType: 'shelf',
});

describe('openai recognizer against a real chat-completions endpoint', () => {
  let png: Buffer;
  let input: RecognizeInput;
  before(async () => {
    png = await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 200, g: 30, b: 30 } } })
      .png()
      .toBuffer();
    input = { image: png, contentType: 'image/png', width: 32, height: 24, catalogue, runIndex: 0 };
  });

  const servers: { close(): Promise<void> }[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  async function setup(script: Parameters<typeof startChatApi>[0], opts: OpenAiRecognizerOptions = {}) {
    const api = await startChatApi(script);
    servers.push(api);
    const recognizer = new OpenAiRecognizer(
      { baseURL: api.baseURL, apiKey: API_KEY, model: 'test-vision', timeoutMs: 5_000, ...opts },
      {},
    );
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
    const text = parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
    assert.match(text, /"sku":"COLA-330"/);
    assert.match(text, /"sku":"CHIPS-150"/);
    assert.match(text, /"size":"330 ml"/);
    assert.equal(body.response_format.type, 'json_schema');
    assert.equal(body.response_format.json_schema.strict, true);
    const item = body.response_format.json_schema.schema.properties.products.items;
    assert.deepEqual(new Set(item.required), new Set(Object.keys(cola)));
    assert.equal(item.additionalProperties, false);
    assert.deepEqual(item.properties.shelfPosition.anyOf, [
      { type: 'string', enum: ['top', 'eye-level', 'middle', 'bottom'] },
      { type: 'null' },
    ]);
    assert.deepEqual(item.properties.price.type, ['number', 'null']);
  });

  test('confidence is clamped to 0..1 and units to a whole number of at least 1, nothing else changes', async () => {
    const { recognizer } = await setup(() => ({
      json: answer({
        products: [
          { ...cola, confidenceScore: 1.4, units: 0 },
          { ...unknownChips, confidenceScore: -0.2, units: 2.6 },
        ],
      }),
    }));
    assert.deepEqual(await recognizer.recognize(input), [
      { ...cola, confidenceScore: 1, units: 1 },
      { ...unknownChips, confidenceScore: 0, units: 3 },
    ]);
  });

  test('values past their products columns are bounded: text cut with an ellipsis, identifiers and non-ISO currencies dropped, counts clamped, impossible prices dropped', async () => {
    const { recognizer } = await setup(() => ({
      json: answer({
        products: [
          {
            ...cola,
            brand: 'B'.repeat(300),
            category: 'c'.repeat(256),
            subcategory: 'soft drinks',
            sizeUnit: `millilitres ${'m'.repeat(300)}`,
            sku: 'S'.repeat(300),
            upc: '1'.repeat(300),
            currency: 'US Dollars (United S',
            units: 1e12,
            price: 1e13,
            discountedPrice: 9_999_999_999.99,
          },
          { ...unknownChips, currency: ' eur ', units: 7 },
        ],
      }),
    }));
    const [big, chips] = await recognizer.recognize(input);
    assert.equal(big!.brand, `${'B'.repeat(254)}…`);
    assert.equal(big!.category, `${'c'.repeat(254)}…`);
    assert.equal(big!.subcategory, 'soft drinks');
    assert.equal([...big!.sizeUnit!].length, 255);
    assert.equal(big!.sku, null, 'a cut identifier identifies nothing');
    assert.equal(big!.upc, null);
    assert.equal(big!.currency, null, 'not an ISO 4217 code');
    assert.equal(big!.units, 1000);
    assert.equal(big!.price, null, 'past numeric(12,2)');
    assert.equal(big!.discountedPrice, 9_999_999_999.99, 'the largest price the column holds is kept');
    assert.equal(big!.description, cola.description);
    assert.deepEqual(chips, { ...unknownChips, currency: 'EUR', units: 7 });
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
      call === 1
        ? {
            status: 429,
            json: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
          }
        : { json: answer({ products: [cola] }) },
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
    const { api, recognizer } = await setup((_, call) => ({
      status: statuses[call - 1]!,
      json: { error: { message: `status ${statuses[call - 1]}` } },
    }));
    for (const status of [500, 503]) {
      await assert.rejects(
        recognizer.recognize(input),
        (err: Error) => !(err instanceof RecognitionRejectedError) && err.message.includes(String(status)),
      );
    }
    await assert.rejects(
      recognizer.recognize(input),
      (err: Error) => err instanceof RecognitionRejectedError && err.message.includes('400'),
    );

    const badKey = new OpenAiRecognizer({ baseURL: api.baseURL, apiKey: 'sk-wrong', model: 'test-vision' }, {});
    await assert.rejects(
      badKey.recognize(input),
      (err: Error) => err instanceof RecognitionRejectedError && err.message.includes('401'),
    );
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
    await assert.rejects(
      recognizer.recognize(input),
      (err: Error) => !(err instanceof RecognitionRejectedError) && /within 300 ms/.test(err.message),
    );
    assert.ok(Date.now() - started < 2_000);
  });

  test('a refusal, or a content-filtered answer, is rejected for good', async () => {
    const replies = [
      completion({ refusal: "I'm sorry, I can't help with that." }),
      completion({ content: '' }, 'content_filter'),
    ];
    const { recognizer } = await setup((_, call) => ({ json: replies[call - 1] }));
    await assert.rejects(
      recognizer.recognize(input),
      (err: Error) => err instanceof RecognitionRejectedError && /refused.*can't help/.test(err.message),
    );
    await assert.rejects(
      recognizer.recognize(input),
      (err: Error) => err instanceof RecognitionRejectedError && /content filter/.test(err.message),
    );
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
    assert.throws(
      () => new OpenAiRecognizer({}, { OPENAI_API_KEY: 'k', OPENAI_TIMEOUT_MS: 'soon' }),
      /OPENAI_TIMEOUT_MS/,
    );
    const r = new OpenAiRecognizer({}, { OPENAI_API_KEY: 'k' });
    assert.equal(r.name, 'openai');
    assert.equal(r.model, 'gpt-4o-mini');
    assert.equal(
      new OpenAiRecognizer({}, { OPENAI_API_KEY: 'k', OPENAI_MODEL: 'gemini-2.5-flash' }).model,
      'gemini-2.5-flash',
    );
  });
});
