import { hash, verify, type Algorithm } from '@node-rs/argon2';

/** `Algorithm.Argon2id`: the package's enum is a const enum, which isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

/**
 * argon2id with the library's defaults (19 MiB, 2 passes, 1 lane: OWASP's recommended minimum),
 * computed on libuv's thread pool, so a sign-in never blocks the API's event loop. The PHC string
 * records its parameters, so raising them later still verifies the hashes made before.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

/** Checks passwords against their hashes; one per SessionService (src/services.ts builds it once per process). */
export class PasswordCheck {
  /** A hash of nothing anyone knows: verified against when no member has the e-mail, so both cost the same. */
  private decoy: Promise<string> | undefined;

  /**
   * Whether `password` matches `stored`; with no stored hash (an unknown e-mail, a member who never set
   * a password) a decoy is verified instead, so the answer takes as long either way and does not tell
   * which e-mail addresses are members.
   */
  async verify(stored: string | null | undefined, password: string): Promise<boolean> {
    if (!stored) {
      this.decoy ??= hashPassword(`decoy ${Math.random()}`);
      await verify(await this.decoy, password).catch(() => false);
      return false;
    }
    return verify(stored, password).catch(() => false);
  }
}
