import { STATUS_CODES, type Server } from 'node:http';
import type Koa from 'koa';
import { AppError } from '../lib/errors.js';
import { errorBody } from './error-handler.js';

/**
 * What Node refuses before Koa sees it, answered in the API's error shape too: request headers over
 * Node's 16 KiB (a long filter list in the query string) and requests that are not HTTP. Node's
 * own answer is a bare 431 or 400 with no body, which a client cannot tell from a proxy's.
 */
function answerClientErrors(server: Server) {
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify(
      errorBody(
        tooLarge
          ? new AppError(
              'REQUEST_HEADERS_TOO_LARGE',
              'The request line and headers exceed 16 KiB: send fewer or shorter query values.',
            )
          : new AppError('MALFORMED_REQUEST', 'The request is not valid HTTP/1.1.'),
      ),
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}

/** The API's HTTP server: the Koa app, with Node's own refusals answered as ours. */
export async function listen(app: Koa, port: number, host: string): Promise<Server> {
  const server = app.listen(port, host);
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return server;
}
