import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevices } from '../../test/gateway-test-kit';
import { buildTestApp, type TestApp } from '../../test/app';
import { MAX_RAW_BYTES } from '@cellhub/contract/protocol';
import { PropertyWriter } from './property-writer';

const rowsOf = <T>(res: unknown): T[] => (res as { rows: T[] }).rows;

let t: TestApp;
let ids: number[];
beforeAll(async () => {
  t = await buildTestApp();
  const owner = await t.createUser();
  const sns = ['PW-1', 'PW-2', 'PW-3'];
  await createDevices(t, owner.token, sns);
  const res = await t.app.deps.db.execute(
    sql`select id from devices where sn in ('PW-1', 'PW-2', 'PW-3') order by sn`,
  );
  ids = rowsOf<{ id: number }>(res).map((r) => r.id);
});
afterAll(() => t.close());

async function dailyStats(): Promise<Map<number, number>> {
  const res = await t.app.deps.db.execute(
    sql`select device_id, messages from device_daily_stats where day = current_date`,
  );
  return new Map(rowsOf<{ device_id: number; messages: number }>(res).map((r) => [r.device_id, r.messages]));
}

describe('property writer', () => {
  it('stores history and latest values, and counts messages per device and day', async () => {
    const w = new PropertyWriter(t.app.deps.db, {
      maxBatchRows: 1000,
      maxDelayMs: 5,
      maxQueueRows: 10_000,
      countsEveryMs: 5000,
    });
    const [a, b, c] = ids as [number, number, number];
    const ts = Date.now();
    const writes = [
      w.write(a, [{ ts, params: { temp: 20, ok: true } }]),
      w.write(a, [{ ts: ts + 1, params: { temp: 21 } }]),
      w.write(b, [{ ts, params: { mode: 'auto' } }]),
    ];
    w.markActive(c);
    await Promise.all(writes);
    await w.flush();
    expect(Object.fromEntries(await dailyStats())).toEqual({ [a]: 2, [b]: 1, [c]: 0 });

    // A second batch adds to the counts; a connect of a device with messages leaves its count alone.
    w.markActive(a);
    await w.write(c, [{ ts, params: { temp: 5 } }]);
    await w.flush();
    expect(Object.fromEntries(await dailyStats())).toEqual({ [a]: 2, [b]: 1, [c]: 1 });

    const latest = await t.app.deps.db.execute(
      sql`select key, num from device_property_latest where device_id = ${a} and key = 'temp'`,
    );
    expect(rowsOf<{ num: number }>(latest)[0]?.num).toBe(21);
    const hist = await t.app.deps.db.execute(
      sql`select count(*)::int as n from device_properties where device_id = ${a}`,
    );
    expect(rowsOf<{ n: number }>(hist)[0]?.n).toBe(3);
    await w.close();
  });

  it('sends the daily counts along at most every countsEveryMs, each message counted once', async () => {
    const [a] = ids as [number];
    const before = (await dailyStats()).get(a) ?? 0;
    const w = new PropertyWriter(t.app.deps.db, {
      maxBatchRows: 1000,
      maxDelayMs: 1,
      maxQueueRows: 10_000,
      countsEveryMs: 60_000,
    });
    for (let i = 0; i < 5; i++) await w.write(a, [{ ts: Date.now(), params: { c: i } }]);
    // Rows are stored batch by batch; the counts wait for the window (or an explicit flush).
    expect(w.stats.batches).toBe(5);
    expect((await dailyStats()).get(a) ?? 0).toBe(before);
    await w.flush();
    expect((await dailyStats()).get(a)).toBe(before + 5);
    await w.flush();
    await w.close();
    expect((await dailyStats()).get(a)).toBe(before + 5);
  });

  it('keeps device timestamps to the millisecond and every value type, and the newest value as latest', async () => {
    const w = new PropertyWriter(t.app.deps.db, {
      maxBatchRows: 1000,
      maxDelayMs: 5,
      maxQueueRows: 10_000,
      countsEveryMs: 5000,
    });
    const b = ids[1]!;
    const stamps = [946_684_800_000, 1_732_245_678_123, 4_102_444_799_999, 1_700_000_000_001];
    // Out of order in one message: the latest value must be the one with the newest ts, not the last one.
    await w.write(
      b,
      stamps.map((ts, i) => ({ ts, params: { k: i, s: `q"\\'{},${i}`, f: i % 2 === 0, x: 0.1 + i } })),
    );
    await w.close();
    const res = await t.app.deps.db.execute(sql`
      select (extract(epoch from ts) * 1000)::bigint::text as ms, key, num, txt, bool from device_properties
      where device_id = ${b} and key in ('k', 's', 'f', 'x') order by ts, key`);
    const rows = rowsOf<{ ms: string; key: string; num: number; txt: string; bool: boolean }>(res);
    const sorted = [...stamps].sort((x, y) => x - y);
    expect(rows.filter((r) => r.key === 'k').map((r) => Number(r.ms))).toEqual(sorted);
    expect(rows.filter((r) => r.key === 's').map((r) => r.txt)).toEqual(
      sorted.map((ts) => `q"\\'{},${stamps.indexOf(ts)}`),
    );
    expect(rows.filter((r) => r.key === 'x').map((r) => r.num)).toEqual(
      sorted.map((ts) => 0.1 + stamps.indexOf(ts)),
    );
    expect(rows.filter((r) => r.key === 'f').map((r) => r.bool)).toEqual(
      sorted.map((ts) => stamps.indexOf(ts) % 2 === 0),
    );
    const latest = await t.app.deps.db.execute(
      sql`select (extract(epoch from ts) * 1000)::bigint::text as ms, num from device_property_latest
          where device_id = ${b} and key = 'k'`,
    );
    expect(rowsOf<{ ms: string; num: number }>(latest)[0]).toEqual({ ms: '4102444799999', num: 2 });
  });

  it('pushes back when the queue is full instead of dropping or growing', async () => {
    const c = ids[2]!;
    const w = new PropertyWriter(t.app.deps.db, {
      maxBatchRows: 100,
      maxDelayMs: 10_000,
      maxQueueRows: 6,
      countsEveryMs: 5000,
    });
    const three = (n: number) => [{ ts: Date.now(), params: { a: n, b: n, c: n } }];
    const first = w.tryAdd(c, three(1));
    const second = w.tryAdd(c, three(2));
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(w.backlog).toBe(6);
    expect(w.tryAdd(c, three(3))).toBeUndefined();
    const room = w.room();
    await w.flush();
    await room;
    await Promise.all([first, second]);
    expect(w.stats).toMatchObject({ batches: 1, rows: 6, messages: 2 });
    const third = w.write(c, three(3));
    await w.close();
    await third;
    expect(w.stats).toMatchObject({ batches: 2, rows: 9, messages: 3 });
  });

  it('starts a new batch at maxBatchRows without splitting a message', async () => {
    const c = ids[2]!;
    const w = new PropertyWriter(t.app.deps.db, {
      maxBatchRows: 4,
      maxDelayMs: 10_000,
      maxQueueRows: 100,
      countsEveryMs: 5000,
    });
    const three = (n: number) => [{ ts: Date.now(), params: { a: n, b: n, c: n } }];
    await Promise.all([w.write(c, three(1)), w.write(c, three(2)), w.write(c, three(3))]);
    await w.close();
    expect(w.stats).toMatchObject({ batches: 3, rows: 9, messages: 3 });
  });
  it('with several statements in flight stores every row once, counts every message once, keeps the newest value', async () => {
    const [a, b, c] = ids as [number, number, number];
    const before = await dailyStats();
    const histBefore = rowsOf<{ n: number }>(
      await t.app.deps.db.execute(
        sql`select count(*)::int as n from device_properties where key = 'inflight'`,
      ),
    )[0]!.n;
    const w = new PropertyWriter(t.app.deps.db, {
      maxBatchRows: 7,
      maxDelayMs: 0,
      maxQueueRows: 10_000,
      countsEveryMs: 0,
      maxInFlight: 3,
    });
    const ts = Date.now() + 60_000;
    const writes: Promise<void>[] = [];
    // 300 messages in batches of 7 rows: dozens of statements, up to three at a time, each also upserting the same
    // latest rows and (every statement, countsEveryMs 0) the daily counts.
    for (let i = 0; i < 300; i++) {
      const id = [a, b, c][i % 3]!;
      writes.push(w.write(id, [{ ts: ts + i, params: { inflight: i } }]));
    }
    await Promise.all(writes);
    await w.flush();
    expect(w.stats.failures).toBe(0);
    expect(w.stats.batches).toBeGreaterThan(10);
    const after = await dailyStats();
    for (const id of [a, b, c]) expect((after.get(id) ?? 0) - (before.get(id) ?? 0)).toBe(100);
    const hist = rowsOf<{ n: number }>(
      await t.app.deps.db.execute(
        sql`select count(*)::int as n from device_properties where key = 'inflight'`,
      ),
    )[0]!.n;
    expect(hist - histBefore).toBe(300);
    const latest = rowsOf<{ device_id: number; num: number }>(
      await t.app.deps.db.execute(
        sql`select device_id, num from device_property_latest where key = 'inflight' order by device_id`,
      ),
    );
    // The newest value per device wins whichever statement committed last.
    expect(new Map(latest.map((r) => [r.device_id, r.num]))).toEqual(
      new Map([
        [a, 297],
        [b, 298],
        [c, 299],
      ]),
    );
    await w.close();
  });

  it('writes the raw uplink of decoded values in the same statement, cut at MAX_RAW_BYTES', async () => {
    const [a, b] = ids as [number, number];
    const before = rowsOf<{ id: number }>(
      await t.app.deps.db.execute(sql`select coalesce(max(id), 0)::int as id from raw_messages`),
    )[0]!.id;
    const ts = Date.now();
    const big = Buffer.alloc(MAX_RAW_BYTES + 10, 7);
    let statements = 0;
    const execute = t.app.deps.db.execute.bind(t.app.deps.db);
    const counting = Object.create(t.app.deps.db) as typeof t.app.deps.db;
    counting.execute = ((q: Parameters<typeof execute>[0]) => {
      statements++;
      return execute(q);
    }) as typeof execute;
    const wc = new PropertyWriter(counting, {
      maxBatchRows: 1000,
      maxDelayMs: 5,
      maxQueueRows: 10_000,
      countsEveryMs: 60_000,
    });
    await Promise.all([
      wc.write(a, [{ ts, params: { rawTemp: 21.5 } }], Buffer.from('00d7', 'hex')),
      wc.write(b, [{ ts, params: { rawTemp: 3 } }], big),
      wc.write(b, [{ ts: ts + 1, params: { rawTemp: 4 } }]),
    ]);
    // One statement for the three messages and both raw rows.
    expect(statements).toBe(1);
    const raw = rowsOf<{ device_id: number; data: string; size: number; truncated: boolean }>(
      await t.app.deps.db.execute(
        sql`select device_id, data, size, truncated from raw_messages where id > ${before} order by id`,
      ),
    );
    expect(raw).toEqual([
      { device_id: a, data: Buffer.from('00d7', 'hex').toString('base64'), size: 2, truncated: false },
      {
        device_id: b,
        data: big.subarray(0, MAX_RAW_BYTES).toString('base64'),
        size: MAX_RAW_BYTES + 10,
        truncated: true,
      },
    ]);
    const hist = rowsOf<{ device_id: number; num: number }>(
      await t.app.deps.db.execute(
        sql`select device_id, num from device_properties where key = 'rawTemp' order by device_id, ts`,
      ),
    );
    expect(hist.map((r) => [r.device_id, r.num])).toEqual([
      [a, 21.5],
      [b, 3],
      [b, 4],
    ]);
    await wc.close();
  });
});
