import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const API_KEY = 'sk-test-key';

export type Reply =
  | { status?: number; json: unknown }
  /** Headers only when `headersOnly`, nothing at all otherwise: the request hangs. */
  | { hang: true; headersOnly?: boolean };

export type ChatRequest = { headers: IncomingMessage['headers']; body: any };

/**
 * A real chat-completions endpoint on loopback. It refuses what a real one would (wrong path,
 * missing key), records each request and answers from the test's script, one reply per call.
 */
export async function startChatApi(script: (req: ChatRequest, call: number) => Reply) {
  const requests: ChatRequest[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const send = (status: number, json: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return send(404, { error: { message: 'not found', type: 'invalid_request_error' } });
    if (req.headers.authorization !== `Bearer ${API_KEY}`)
      return send(401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
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

export function completion(message: { content?: string | null; refusal?: string | null }, finishReason = 'stop') {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'test-vision',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: message.content ?? null, refusal: message.refusal ?? null },
        finish_reason: finishReason,
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
  };
}
export const answer = (json: unknown) =>
  completion({ content: typeof json === 'string' ? json : JSON.stringify(json) });
