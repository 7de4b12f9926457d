import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { FIXTURE_TYPES, SHELF_POSITIONS, SHELF_SECTIONS } from '../../products/product.entity.js';
import {
  boundCurrency,
  boundIdentifier,
  boundPrice,
  boundScore,
  boundLongText,
  boundText,
  boundUnits,
} from '../product-bounds.js';
import {
  RecognitionRejectedError,
  type CatalogueEntry,
  type RecognizedProduct,
  type RecognizeInput,
  type Recognizer,
} from '../recognizer.js';

/** The catalogue rides in every request; past this many entries it costs more tokens than it helps. */
export const MAX_CATALOGUE_ENTRIES = 500;

export type OpenAiRecognizerOptions = { baseURL?: string; apiKey?: string; model?: string; timeoutMs?: number };

// config.ts is shared and only this engine needs these, so they are read here, on construction:
// a process that runs another recognizer never needs OPENAI_API_KEY.
export const OPENAI_SETTINGS_SCHEMA = z.object({
  OPENAI_BASE_URL: z
    .string()
    .url()
    .default('https://api.openai.com/v1')
    .describe('`openai` recognizer: any OpenAI-compatible chat-completions endpoint with image input'),
  OPENAI_API_KEY: z
    .string({ error: 'OPENAI_API_KEY is required when RECOGNIZER=openai' })
    .min(1, 'OPENAI_API_KEY must not be empty')
    .describe('its key; required with `RECOGNIZER=openai`'),
  OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini').describe('a vision-capable model'),
  OPENAI_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000).describe('time limit of one recognition call'),
});

function settings(opts: OpenAiRecognizerOptions, env: NodeJS.ProcessEnv) {
  const result = OPENAI_SETTINGS_SCHEMA.safeParse({
    OPENAI_BASE_URL: opts.baseURL ?? env.OPENAI_BASE_URL,
    OPENAI_API_KEY: opts.apiKey ?? env.OPENAI_API_KEY,
    OPENAI_MODEL: opts.model ?? env.OPENAI_MODEL,
    OPENAI_TIMEOUT_MS: opts.timeoutMs ?? env.OPENAI_TIMEOUT_MS,
  });
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid openai recognizer configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

// The JSON Schema the endpoint must answer with. Strict structured outputs require every property
// to be listed in `required` and no additional properties; "unknown" is expressed as null.
// Nullable enums use anyOf, the form OpenAI's own zod helper emits (an enum listing null is not
// accepted everywhere). No minimum/maximum keywords: several compatible endpoints reject them,
// and the zod check below enforces the ranges anyway.
const nullable = (type: string, description: string) => ({ type: [type, 'null'], description });
const nullableEnum = (values: readonly string[], description: string) => ({
  anyOf: [{ type: 'string', enum: [...values] }, { type: 'null' }],
  description,
});

const productProperties = {
  brand: nullable('string', 'Brand as printed on the pack, or null.'),
  description: nullable('string', 'Product name/variant as printed (e.g. "Classic Cola"), or null.'),
  units: { type: 'integer', description: 'Facings: how many units of this product are visible. At least 1.' },
  upc: nullable('string', 'UPC/EAN digits only if a barcode is clearly legible, else null.'),
  sku: nullable('string', 'SKU of the catalogue entry this product certainly is, else null.'),
  category: nullable('string', 'Product category (e.g. "beverages"), or null.'),
  subcategory: nullable('string', 'Product subcategory (e.g. "soft drinks"), or null.'),
  price: nullable('number', 'Regular price read from the shelf label, or null.'),
  discountedPrice: nullable('number', 'Promotional price read from the shelf label, or null.'),
  currency: nullable('string', 'ISO 4217 code of the label prices (e.g. "USD"), or null.'),
  onSale: { type: 'boolean', description: 'True only if a promotion/discount label applies to this product.' },
  confidenceScore: { type: 'number', description: 'Confidence in this identification, 0 to 1.' },
  shelfPosition: nullableEnum(SHELF_POSITIONS, 'Vertical shelf level of the product, or null.'),
  shelfSection: nullableEnum(SHELF_SECTIONS, 'Horizontal third of the fixture, or null.'),
  fixtureType: nullableEnum(FIXTURE_TYPES, 'Kind of fixture the product is on, or null.'),
  sizeValue: nullable('number', 'Pack size amount (e.g. 330 for 330 ml), or null.'),
  sizeUnit: nullable('string', 'Pack size unit as printed (e.g. "ml", "g", "pack"), or null.'),
} satisfies Record<Exclude<keyof RecognizedProduct, 'box'>, unknown>; // no box: models place them too unreliably to draw

export const RESPONSE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['products'],
  properties: {
    products: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: Object.keys(productProperties),
        properties: productProperties,
      },
    },
  },
};

// The same shape, checked on our side: an endpoint may not enforce the schema (or may not
// support strict mode at all), and a wrong answer must never reach the database. Values past the
// products columns are brought within them (product-bounds.ts): cutting a brand or dropping a
// currency that is no ISO code keeps the rest of the answer, where refusing it would lose it all.
const productSchema = z.object({
  brand: z.string().nullable().transform(boundText),
  description: z.string().nullable().transform(boundLongText),
  // A model may report 2.0 or 0 facings for a product it plainly sees; a whole unit is what is meant.
  units: z.number().transform(boundUnits),
  upc: z.string().nullable().transform(boundIdentifier),
  sku: z.string().nullable().transform(boundIdentifier),
  category: z.string().nullable().transform(boundText),
  subcategory: z.string().nullable().transform(boundText),
  price: z.number().nonnegative().nullable().transform(boundPrice),
  discountedPrice: z.number().nonnegative().nullable().transform(boundPrice),
  currency: z.string().nullable().transform(boundCurrency),
  onSale: z.boolean(),
  confidenceScore: z.number().transform(boundScore),
  shelfPosition: z.enum(SHELF_POSITIONS).nullable(),
  shelfSection: z.enum(SHELF_SECTIONS).nullable(),
  fixtureType: z.enum(FIXTURE_TYPES).nullable(),
  sizeValue: z.number().nonnegative().nullable(),
  sizeUnit: z.string().nullable().transform(boundText),
}) satisfies z.ZodType<RecognizedProduct, unknown>;

const answerSchema = z.object({ products: z.array(productSchema) });

const SYSTEM_PROMPT = `You are a retail shelf auditor. You receive one photo of a store shelf or display and the store's product catalogue.
List every distinct product visible in the photo, one entry per distinct product (same brand, variant and size), with:
- brand and description as printed on the pack;
- units: the number of facings (units of that product visible side by side at the front), at least 1;
- price and discountedPrice: read from the shelf label belonging to the product; discountedPrice only when a promotional price is shown; currency as an ISO 4217 code when the label or context makes it clear;
- onSale: true only if a promotion/discount label applies to the product;
- shelfPosition: the vertical level of the shelf the product is on: "top" (highest shelf), "eye-level", "middle" or "bottom" (lowest shelf);
- shelfSection: the horizontal third of the fixture it is in: "left", "center" or "right";
- fixtureType: "shelf", "fridge", "freezer", "endcap", "floor-display", "checkout" or "other";
- sizeValue and sizeUnit: pack size as printed (e.g. 330 and "ml");
- upc: only if a barcode's digits are clearly legible;
- sku: the catalogue SKU, only when you are sure the product is that catalogue entry; category and subcategory from the catalogue entry when matched, otherwise your best reading of the product type;
- confidenceScore: how sure you are of the identification, from 0 to 1.
Use null for anything you cannot see or read. Never invent brands, prices, barcodes or SKUs.
Answer only with JSON matching the given schema. If no product is visible, answer {"products": []}.`;

/** Nulls dropped and short keys: the catalogue is the bulk of every request. */
function compactCatalogue(catalogue: CatalogueEntry[]): string {
  return JSON.stringify(
    catalogue.slice(0, MAX_CATALOGUE_ENTRIES).map((e) =>
      Object.fromEntries(
        Object.entries({
          sku: e.sku,
          upc: e.upc,
          brand: e.brand,
          name: e.name,
          category: e.category,
          subcategory: e.subcategory,
          size: e.sizeValue != null ? `${e.sizeValue}${e.sizeUnit ? ` ${e.sizeUnit}` : ''}` : null,
          price: e.expectedPrice,
          currency: e.currency,
        }).filter(([, v]) => v != null && v !== ''),
      ),
    ),
  );
}

function catalogueText(catalogue: CatalogueEntry[]): string {
  if (catalogue.length === 0) return 'The store has no catalogue: leave sku null for every product.';
  const partial =
    catalogue.length > MAX_CATALOGUE_ENTRIES
      ? ` (the first ${MAX_CATALOGUE_ENTRIES} of ${catalogue.length} entries)`
      : '';
  return `Store catalogue${partial}, as JSON:\n${compactCatalogue(catalogue)}`;
}

/** Whether an HTTP failure can go away by itself (so the activity's retry policy should try again). */
const transientStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * Recognition by a vision model behind any OpenAI-compatible chat-completions endpoint (OpenAI,
 * Azure OpenAI, Gemini's compatible endpoint, vLLM, Ollama), with structured outputs. One call per
 * pass and no retries here: a failure is either thrown as retryable for the Temporal activity's
 * retry policy, or as RecognitionRejectedError when asking again cannot help.
 */
export class OpenAiRecognizer implements Recognizer {
  readonly name = 'openai';
  readonly model: string;
  private readonly timeoutMs: number;
  private readonly baseURL: string;
  private readonly client: OpenAI;

  constructor(opts: OpenAiRecognizerOptions = {}, env: NodeJS.ProcessEnv = process.env) {
    const s = settings(opts, env);
    this.model = s.OPENAI_MODEL;
    this.timeoutMs = s.OPENAI_TIMEOUT_MS;
    this.baseURL = s.OPENAI_BASE_URL;
    this.client = new OpenAI({
      baseURL: s.OPENAI_BASE_URL,
      apiKey: s.OPENAI_API_KEY,
      timeout: s.OPENAI_TIMEOUT_MS,
      maxRetries: 0,
    });
  }

  async recognize(input: RecognizeInput): Promise<RecognizedProduct[]> {
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        {
          role: 'user',
          content: [
            { type: 'text', text: catalogueText(input.catalogue) },
            // Labels and pack text are small in a shelf photo: the low-detail rendering cannot read them.
            {
              type: 'image_url',
              image_url: { url: `data:${input.contentType};base64,${input.image.toString('base64')}`, detail: 'high' },
            },
          ],
        },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'shelf_products', strict: true, schema: RESPONSE_SCHEMA },
      },
    };

    // The SDK's timeout stops at the response headers; this deadline also covers a body that stalls.
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = input.signal ? AbortSignal.any([input.signal, deadline]) : deadline;
    let completion: ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(body, { signal });
    } catch (err) {
      throw this.failure(err, input.signal, deadline);
    }
    return this.parse(completion);
  }

  private failure(err: unknown, callerSignal: AbortSignal | undefined, deadline: AbortSignal): Error {
    if (callerSignal?.aborted) {
      // The activity was cancelled: hand Temporal its own cancellation reason back.
      return callerSignal.reason instanceof Error ? callerSignal.reason : new Error('openai recognition cancelled');
    }
    const where = `${this.baseURL} (model ${this.model})`;
    if (err instanceof APIConnectionTimeoutError || deadline.aborted) {
      return new Error(`openai recognizer: no answer from ${where} within ${this.timeoutMs} ms`, { cause: err });
    }
    if (err instanceof APIUserAbortError)
      return new Error(`openai recognizer: request to ${where} aborted`, { cause: err });
    if (err instanceof APIConnectionError)
      return new Error(`openai recognizer: cannot reach ${where}: ${err.message}`, { cause: err });
    if (err instanceof APIError && err.status !== undefined) {
      const message = `openai recognizer: ${where} answered HTTP ${err.message}`;
      if (transientStatus(err.status)) return new Error(message, { cause: err });
      // 400 (image or request refused), 401/403 (key), 404 (model or URL), 422: the same request fails again.
      return new RecognitionRejectedError(message);
    }
    // Unknown failures (a broken connection mid-body, a garbled response) are worth another attempt.
    const detail = err instanceof Error ? err.message : String(err);
    return new Error(`openai recognizer: request to ${where} failed: ${detail}`, { cause: err });
  }

  private parse(completion: ChatCompletion): RecognizedProduct[] {
    // A body that is not a chat completion (wrong base URL behind a catch-all proxy, for example).
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!choice?.message)
      throw new RecognitionRejectedError(`openai recognizer: ${this.baseURL} did not answer with a chat completion`);
    const { message, finish_reason: finish } = choice;
    if (message.refusal)
      throw new RecognitionRejectedError(`openai recognizer: the model refused the image: ${message.refusal}`);
    if (finish === 'content_filter')
      throw new RecognitionRejectedError('openai recognizer: the answer was blocked by the content filter');
    if (finish === 'length')
      throw new RecognitionRejectedError('openai recognizer: the answer was cut off at the output token limit');
    if (typeof message.content !== 'string' || message.content.trim() === '') {
      throw new RecognitionRejectedError('openai recognizer: the model gave an empty answer');
    }

    let json: unknown;
    try {
      json = JSON.parse(message.content);
    } catch {
      throw new RecognitionRejectedError(`openai recognizer: the answer is not JSON: ${excerpt(message.content)}`);
    }
    const result = answerSchema.safeParse(json);
    if (!result.success) {
      const issues = result.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
      throw new RecognitionRejectedError(
        `openai recognizer: the answer does not match the product schema: ${issues.join('; ')}`,
      );
    }
    return result.data.products;
  }
}

const excerpt = (s: string) => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);
