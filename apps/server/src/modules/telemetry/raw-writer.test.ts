import { describe, expect, it } from 'vitest';
import { RawWriter } from './raw-writer';

/** The writer's database handle (only `execute` is used). */
type Db = ConstructorParameters<typeof RawWriter>[0];

/** A stand-in for the database that counts statements, each taking `statementMs`. */
function countingDb(statementMs: number) {
  const statements: number[] = [];
  const db = {
    execute: async () => {
      statements.push(1);
      if (statementMs > 0) await new Promise((r) => setTimeout(r, statementMs));
    },
  };
  return { db: db as unknown as Db, statements };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('RawWriter', () => {
  it('groups rows that arrive in separate ticks within its delay into one statement', async () => {
    // Statements that end at once: without the delay each frame would be a statement of its own (next test).
    const { db, statements } = countingDb(0);
    const w = new RawWriter(db, 10);
    const done: Promise<void>[] = [];
    // 50 frames of 50 devices, one per event-loop turn, as socket reads arrive.
    for (let i = 0; i < 50; i++) {
      done.push(w.add(i + 1, Buffer.from([i])));
      await tick();
    }
    await Promise.all(done);
    expect(statements.length).toBeLessThanOrEqual(2);
  });

  it('without a delay writes a lone frame per statement when each ends before the next frame', async () => {
    const { db, statements } = countingDb(0);
    const w = new RawWriter(db, 0);
    for (let i = 0; i < 5; i++) await w.add(i + 1, Buffer.from([i]));
    expect(statements).toHaveLength(5);
  });

  it('resolves every add once its batch is written and rejects them all when it fails', async () => {
    const db = {
      execute: async () => {
        throw new Error('disk full');
      },
    } as unknown as Db;
    const w = new RawWriter(db, 5);
    const a = w.add(1, Buffer.from('a'));
    const b = w.add(2, Buffer.from('b'));
    await expect(a).rejects.toThrow('disk full');
    await expect(b).rejects.toThrow('disk full');
    await w.close();
  });
});
