import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  characterCount,
  fitText,
  hasControlCharacter,
  hasControlCharacterBesidesLineBreaks,
  storableText,
  terminalSafe,
  terminalSafeJson,
  unstorable,
} from '../../src/lib/text.js';

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

describe('control characters (issue 36)', () => {
  it('names refuse C0 (tab and line breaks included), DEL and C1; free text allows tab and line breaks only', () => {
    for (const c of ['\u0000', '\u0007', '\t', '\n', '\r', '\u001b', '\u007f', '\u0080', '\u009b', '\u009f'])
      assert.equal(hasControlCharacter(`a${c}b`), true, JSON.stringify(c));
    for (const ok of ['Zoë’s “sync” — 東京', 'a\u00a0b', '🥤', '\u00a9 2026'])
      assert.equal(hasControlCharacter(ok), false, ok);
    assert.equal(hasControlCharacterBesidesLineBreaks('line 1\r\n\tline 2'), false);
    for (const c of ['\u0000', '\u0007', '\u000b', '\u001b', '\u007f', '\u009b'])
      assert.equal(hasControlCharacterBesidesLineBreaks(`a${c}b`), true, JSON.stringify(c));
  });

  it('terminalSafe writes them as escapes on one line, and doubles a backslash so no escape can be forged', () => {
    assert.equal(
      terminalSafe('sync\nkey_x  admin\u001b]0;pwned\u0007\u009b2J\t\r\u007f'),
      'sync\\nkey_x  admin\\x1b]0;pwned\\x07\\x9b2J\\t\\r\\x7f',
    );
    assert.equal(terminalSafe('a\\nb'), 'a\\\\nb', 'a literal backslash-n is not a line break');
    assert.equal(terminalSafe('abc\u202eexe.txt\u2028'), 'abc\\u202eexe.txt\\u2028');
    assert.equal(terminalSafe('Zoë’s “sync” — 東京 🥤'), 'Zoë’s “sync” — 東京 🥤');
  });

  it('terminalSafeJson escapes what JSON.stringify leaves raw (DEL, C1, bidi) and parses to the same value', () => {
    const value = { name: 'a\u001b]0;x\u0007\u009b\u007f\u202e\n', n: 1 };
    const json = terminalSafeJson(value, 2);
    // eslint-disable-next-line no-control-regex -- finding control characters is what it is for
    assert.doesNotMatch(json, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    assert.deepEqual(JSON.parse(json), value);
  });
});
