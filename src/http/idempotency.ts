// The Idempotency-Key middleware and its in-transaction answer (limits.ts holds the rate limits and
// the doors before it; app.ts puts this after authentication and the role check).
import type { Context, Next } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterCommit } from '../db/after-commit.js';
import { AppError } from '../lib/errors.js';
import { metrics } from '../lib/metrics.js';
import {
  fingerprint,
  type AnswerInCommit,
  type HeldClaim,
  type IdempotencyService,
} from '../modules/idempotency/idempotency.service.js';
import type { AuthContext } from './auth-context.js';
import { errorBody, toAppError } from './error-handler.js';

/**
 * Idempotency-Key on POST and PATCH: the first request runs and its answer (unless 5xx) is kept
 * 24 hours; a repeat replays it with X-Idempotent-Replayed: true. It runs after authentication and
 * the role check, so a stored answer is only ever given to a caller allowed to make the request, and
 * it is scoped to the API key that made it: no other key can replay it.
 */
export function idempotency(service: () => IdempotencyService) {
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('idempotency-key');
    if (!key || (ctx.method !== 'POST' && ctx.method !== 'PATCH')) return next();
    const auth = ctx.state.auth as AuthContext;
    const scope = { organisationId: auth.organisationId, apiKeyId: auth.actorId };
    if (key.length > 255)
      throw new AppError('VALIDATION_FAILED', 'Idempotency-Key is at most 255 characters.', {
        fields: [{ field: 'header.Idempotency-Key', message: 'At most 255 characters.' }],
      });
    const raw = (ctx.request as { rawBody?: string }).rawBody ?? '';
    const claim = await service().claim(scope, key, fingerprint(ctx.method, ctx.url, raw));
    if (claim.kind === 'replay') {
      metrics.idempotentReplays.inc();
      ctx.status = claim.status;
      ctx.body = claim.body;
      ctx.set('X-Idempotent-Replayed', 'true');
      return;
    }
    const held: HeldClaim = { scope, key, token: claim.token };
    // A route whose work is one transaction stores its answer in it (answerInCommit).
    let stored = false;
    const inCommit: IdempotentAnswer = {
      hold: (em) => service().hold(em, held),
      async store(em, status, body) {
        await service().complete(held, status, body, em);
        afterCommit(em, () => {
          stored = true;
        });
      },
    };
    ctx.state.idempotentAnswer = inCommit;
    try {
      await next();
    } catch (err) {
      if (stored) throw err;
      const appError = toAppError(err);
      if (appError.status >= 500) releaseSoon(service, held);
      else await service().complete(held, appError.status, errorBody(appError));
      throw err;
    }
    if (stored) return;
    if (ctx.status >= 500) releaseSoon(service, held);
    else await service().complete(held, ctx.status, ctx.body);
  };
}

type IdempotentAnswer = {
  hold(em: EntityManager): Promise<boolean>;
  store(em: EntityManager, status: number, body: unknown): Promise<void>;
};

/**
 * For a route whose work commits in one transaction: its answer (`status`, `render(result)`) is
 * written by that transaction, so work and answer commit or vanish together. Undefined without an
 * Idempotency-Key.
 */
export function answerInCommit<T>(ctx: Context, status: number, render: (result: T) => unknown) {
  const answer = ctx.state.idempotentAnswer as IdempotentAnswer | undefined;
  if (!answer) return undefined;
  return {
    hold: (em) => answer.hold(em),
    store: (em, result) => answer.store(em, status, render(result)),
  } satisfies AnswerInCommit<T>;
}

/**
 * A 5xx releases the key so a retry runs again. Most 5xx here are the database unreachable, when the
 * release fails too: it is tried again in the background for a while (not holding up the answer), or
 * else the key would refuse the client's retries with 409 until its claim lapses (LOCK_MS).
 */
function releaseSoon(service: () => IdempotencyService, held: HeldClaim): void {
  const until = Date.now() + 60_000;
  const attempt = (wait: number): void => {
    service()
      .release(held)
      .catch(() => {
        if (Date.now() + wait < until) setTimeout(() => attempt(Math.min(wait * 2, 8000)), wait).unref();
      });
  };
  attempt(500);
}
