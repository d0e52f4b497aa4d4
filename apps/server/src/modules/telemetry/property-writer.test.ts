import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevices } from '../../gateway/gateway-test-kit';
import { buildTestApp, type TestApp } from '../../test/app';
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
    const w = new PropertyWriter(t.app.deps.db, { maxBatchRows: 1000, maxDelayMs: 5, maxQueueRows: 10_000 });
    const [a, b, c] = ids as [number, number, number];
    const ts = new Date();
    const writes = [
      w.write([
        { deviceId: a, key: 'temp', ts, value: 20 },
        { deviceId: a, key: 'ok', ts, value: true },
      ]),
      w.write([{ deviceId: a, key: 'temp', ts: new Date(ts.getTime() + 1), value: 21 }]),
      w.write([{ deviceId: b, key: 'mode', ts, value: 'auto' }]),
    ];
    w.markActive(c);
    await Promise.all(writes);
    await w.flush();
    expect(Object.fromEntries(await dailyStats())).toEqual({ [a]: 2, [b]: 1, [c]: 0 });

    // A second batch adds to the counts; a connect of a device with messages leaves its count alone.
    w.markActive(a);
    await w.write([{ deviceId: c, key: 'temp', ts, value: 5 }]);
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
});
