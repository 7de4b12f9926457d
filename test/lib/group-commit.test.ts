import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupCommit } from '../../src/lib/group-commit.js';

describe('GroupCommit', () => {
  it('groups what arrives during a commit into the next one', async () => {
    const groups: string[][] = [];
    let flushing!: () => void;
    const firstFlush = new Promise<void>((r) => (flushing = r));
    const commit = new GroupCommit<string, string>(async (_key, items) => {
      groups.push(items);
      flushing();
      await new Promise((r) => setTimeout(r, 20));
      return items.map((i) => i.toUpperCase());
    });
    const first = commit.submit('org', 'a');
    await firstFlush;
    const answers = await Promise.all([first, ...['b', 'c'].map((i) => commit.submit('org', i))]);
    assert.deepEqual(answers, ['A', 'B', 'C']);
    assert.deepEqual(groups, [['a'], ['b', 'c']]);
  });

  it('what is submitted in the same turn of the event loop goes in one flush, the first item included', async () => {
    // Requests read from several sockets in one turn: flushing the first at once made it a group of
    // one, and the rest a second statement (key-gate takes and submissions, decisions.md).
    const groups: string[][] = [];
    const commit = new GroupCommit<string, string>(async (_key, items) => {
      groups.push(items);
      return items.map((i) => i.toUpperCase());
    });
    const answers = await Promise.all(['a', 'b', 'c'].map((i) => commit.submit('org', i)));
    assert.deepEqual(answers, ['A', 'B', 'C']);
    assert.deepEqual(groups, [['a', 'b', 'c']]);
    // A lone item still goes without a timer: in the next turn.
    await commit.submit('org', 'd');
    assert.deepEqual(groups.at(-1), ['d']);
  });

  it('a group whose commit throws because of one item: the others are committed on their own, only that item fails', async () => {
    // Found by sending a request the database refused among others of the same organisation: the
    // refusal rolled back the shared transaction and every request in the group answered 500.
    const groups: string[][] = [];
    const commit = new GroupCommit<string, string>(async (_key, items) => {
      groups.push(items);
      await new Promise((r) => setTimeout(r, 20));
      if (items.includes('bad')) throw new Error('refused: bad');
      return items.map((i) => i.toUpperCase());
    });
    const settled = await Promise.allSettled(['a', 'b', 'bad', 'c'].map((i) => commit.submit('org', i)));
    assert.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)),
      ['A', 'B', 'refused: bad', 'C'],
    );
    assert.deepEqual(groups, [['a', 'b', 'bad', 'c'], ['a'], ['b'], ['bad'], ['c']]);
  });

  it('with a linger, items arriving shortly after the first go in its flush', async () => {
    // Outbox marks (analysis-commands.ts): without the linger each finished start wrote its own UPDATE.
    const groups: string[][] = [];
    const commit = new GroupCommit<string, void>(
      async (_key, items) => {
        groups.push(items);
        return items.map(() => undefined);
      },
      { lingerMs: 50 },
    );
    const first = commit.submit('marks', 'a');
    await new Promise((r) => setTimeout(r, 5));
    await Promise.all([first, commit.submit('marks', 'b'), commit.submit('marks', 'c')]);
    assert.deepEqual(groups, [['a', 'b', 'c']]);
  });
});
