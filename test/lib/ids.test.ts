import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { idPattern, newId } from '../../src/lib/ids.js';

describe('newId', () => {
  it('prefixed lowercase ULIDs, sorted by creation, all distinct, each character of the alphabet drawn about equally', () => {
    const ids = Array.from({ length: 5000 }, () => newId('analysis'));
    for (const id of ids) assert.match(id, idPattern('analysis'));
    assert.deepEqual([...ids].sort(), ids, 'in creation order');
    assert.equal(new Set(ids).size, ids.length);

    // The first id of each millisecond draws its 16 random characters afresh (the others increment
    // it): take 400 such ids, 6,400 draws, 200 expected per character.
    const counts = new Map<string, number>();
    let last = '';
    for (let fresh = 0; fresh < 400;) {
      const id = newId('analysis');
      if (id.slice(3, 13) === last) continue;
      last = id.slice(3, 13);
      fresh++;
      for (const c of id.slice(13)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    assert.equal(counts.size, 32, `characters drawn: ${[...counts.keys()].sort().join('')}`);
    for (const [c, n] of counts) assert.ok(n > 120 && n < 290, `${c} drawn ${n} times of 6,400`);
  });
});
