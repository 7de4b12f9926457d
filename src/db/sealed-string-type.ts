import { Type, type Platform } from '@mikro-orm/core';
import { secretBox, SecretBox } from '../lib/secrets/index.js';

/**
 * A string column kept encrypted at rest (secret-box.ts): entities see the secret, the database
 * and its dumps see only `sealed1.<key id>.<ciphertext>`. Sealing is deterministic, so an unchanged
 * secret compares equal and causes no update.
 */
export class SealedString extends Type<string | null, string | null> {
  override convertToDatabaseValue(value: string | null): string | null {
    if (value === null || value === undefined) return null;
    return SecretBox.isSealed(value) ? value : secretBox().seal(value);
  }

  override convertToJSValue(value: string | null): string | null {
    if (value === null || value === undefined) return null;
    // Rows written before encryption existed are read as they are until `migrate` seals them.
    return SecretBox.isSealed(value) ? secretBox().open(value) : value;
  }

  override compareAsType(): string {
    return 'string';
  }

  override getColumnType(_prop: unknown, platform: Platform): string {
    return platform.getVarcharTypeDeclarationSQL({ length: 255 });
  }
}
