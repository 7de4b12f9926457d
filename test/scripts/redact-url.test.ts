import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactUrl } from '../../scripts/lib/redact-url.js';

describe('redactUrl (what `npm run cluster` prints of DATABASE_URL)', () => {
  it('hides the password and keeps where the database is', () => {
    const printed = redactUrl(new URL('postgres://shelf:s3cr%40t-pw@db.internal:5433/shelf_cluster?sslmode=require'));
    assert.equal(printed, 'postgres://shelf:***@db.internal:5433/shelf_cluster?sslmode=require');
    assert.doesNotMatch(printed, /s3cr/);
  });

  it('leaves a URL without a password as it is, and prints nothing of one it cannot parse', () => {
    assert.equal(
      redactUrl('postgres://postgres@127.0.0.1:5432/shelf_cluster'),
      'postgres://postgres@127.0.0.1:5432/shelf_cluster',
    );
    assert.equal(redactUrl('postgres://user:pw@host:port-is-not-a-number/db'), '<unparsable URL>');
  });
});
