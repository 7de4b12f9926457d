import { randomBytes } from 'node:crypto';

/**
 * For a script whose processes keep their data in a database made for this run (tests, benchmarks,
 * the soak), or in none (the eval): SECRETS_KEY, if unset a random key of this run's own, set in
 * process.env so the processes it starts inherit it. A service refuses to start without the key
 * (config.ts); nothing sealed under this one outlives the run.
 */
export function runSecretsKey(): string {
  return (process.env.SECRETS_KEY ||= randomBytes(32).toString('hex'));
}
