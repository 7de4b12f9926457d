import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { characterCount, fitText, storableText, unstorable } from '../../src/lib/text.js';

describe('fitText', () => {
  it('keeps text that fits, counting characters as PostgreSQL does (code points)', () => {
    assert.equal(fitText('Out of stock: Cola', 255), 'Out of stock: Cola');
    const emoji = '🥤'.repeat(255);
    assert.equal(emoji.length, 510);
    assert.equal(fitText(emoji, 255), emoji, '255 characters fit varchar(255) although .length is 510');
  });

  it('cuts to exactly the maximum with an ellipsis as the last character', () => {
    const cut = fitText(`Out of stock: ${'n'.repeat(255)}`, 255);
    assert.equal(characterCount(cut), 255);
    assert.equal(cut, `Out of stock: ${'n'.repeat(240)}…`);
  });

  it('never splits a surrogate pair, a letter from its accent, or an emoji sequence', () => {
    const pairs = fitText('🥤'.repeat(300), 255);
    assert.equal(pairs, `${'🥤'.repeat(254)}…`);
    assert.doesNotThrow(() => encodeURIComponent(pairs), 'no lone surrogate');
    // "e" + combining acute: two code points, one character on screen.
    const accents = fitText('e\u0301'.repeat(200), 255);
    assert.equal(accents, `${'e\u0301'.repeat(127)}…`);
    const family = '👩‍👩‍👧'; // five code points
    const families = fitText(family.repeat(60), 255);
    assert.equal(families, `${family.repeat(50)}…`);
    assert.ok(characterCount(families) <= 255);
  });

  it('drops trailing spaces before the ellipsis', () => {
    assert.equal(fitText(`${'a'.repeat(9)} ${'b'.repeat(20)}`, 11), `${'a'.repeat(9)}…`);
  });
});

describe('storableText', () => {
  it('leaves out U+0000 and replaces a lone surrogate with U+FFFD; whole pairs and emoji stay', () => {
    assert.equal(storableText('a\u0000b\u0000'), 'ab');
    assert.equal(storableText('x\ud83dy'), 'x\ufffdy');
    assert.equal(storableText('x\ude00'), 'x\ufffd');
    assert.equal(storableText('😀 👩‍👩‍👧 é'), '😀 👩‍👩‍👧 é');
    assert.equal(unstorable(storableText('\u0000\ud800\udfff\udc00')), false);
    assert.equal(unstorable('ok 😀'), false);
  });
});
