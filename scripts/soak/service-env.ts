/** What the soak's API and worker processes are pointed at. */
export type SoakServices = {
  databaseUrl: string;
  temporalAddress: string;
  secretsKey: string;
  bundlePath: string;
  /**
   * `openai` against the loopback chat-completions stand-in, or `local` (the one users run: real OCR
   * in the workers, with their native tesseract helpers).
   */
  recognizer: { kind: 'openai'; baseURL: string; apiKey: string } | { kind: 'local' };
  /** The soak's own redis-server for the rate limits; without it, PostgreSQL keeps them. */
  redisUrl?: string;
};

/**
 * The environment of the soak's API and worker processes (each slot adds its ports). They run with
 * ALLOW_PRIVATE_NETWORK_FETCH on (photos and webhooks are on loopback stand-ins), so they listen on
 * loopback only, the public ports (HOST) as the metrics and health ones (METRICS_HOST), whatever the
 * calling shell has set: on every interface anyone on the network could have them fetch this
 * machine's private addresses.
 */
export function soakServiceEnv(inherited: NodeJS.ProcessEnv, s: SoakServices): NodeJS.ProcessEnv {
  const recognizer: NodeJS.ProcessEnv =
    s.recognizer.kind === 'local'
      ? { RECOGNIZER: 'local' }
      : {
          RECOGNIZER: 'openai',
          OPENAI_BASE_URL: s.recognizer.baseURL,
          OPENAI_API_KEY: s.recognizer.apiKey,
          OPENAI_MODEL: 'soak-vision',
        };
  const { REDIS_URL: _theirs, ...rest } = inherited;
  return {
    ...rest,
    ...(s.redisUrl ? { REDIS_URL: s.redisUrl } : {}),
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
    DATABASE_URL: s.databaseUrl,
    TEMPORAL_ADDRESS: s.temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    SECRETS_KEY: s.secretsKey,
    LOG_LEVEL: 'warn',
    WORKFLOW_BUNDLE_PATH: s.bundlePath,
    ALLOW_PRIVATE_NETWORK_FETCH: 'true',
    ...recognizer,
    // A killed worker's recognition pass moves on after 5 s, not 20 s.
    RECOGNITION_HEARTBEAT_TIMEOUT_MS: '5000',
    // Eight attempts over about four minutes instead of 30 hours: the soak must end.
    WEBHOOK_RETRY_SCHEDULE_MS: '1000,2000,5000,10000,20000,60000,120000',
    OUTBOX_RELAY_GRACE_MS: '5000',
  };
}
