import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceEvent } from '@cellhub/contract/realtime';
import type { DomainEvent, DomainEventOf } from '../../realtime/domain-events';
import { alertDevices } from '../../test/alerts-test-kit';
import { buildTestApp, type TestApp } from '../../test/app';
import type { DeviceRef } from '../devices/device-ref';

let t: TestApp;
let device: DeviceRef;

beforeAll(async () => {
  t = await buildTestApp();
  const owner = await t.createUser();
  device = (await alertDevices(t, owner.token, ['INGEST-1']))[0]!;
});
afterAll(async () => {
  await t.close();
});

const storedRows = async (deviceId: number) => {
  const res = await t.app.deps.db.execute(
    sql`select count(*)::int as n from device_properties where device_id = ${deviceId}`,
  );
  return (res as unknown as { rows: { n: number }[] }).rows[0]!.n;
};

describe('telemetry ingest', () => {
  it('emits property.committed once per stored message, after its rows are readable, and the browser event', async () => {
    const committed: { event: DomainEventOf<'property.committed'>; rowsThen: Promise<number> }[] = [];
    const browser: DeviceEvent[] = [];
    const off = t.app.deps.events.on('property.committed', (event) => {
      // Read the rows from inside the handler: they must already be there.
      committed.push({ event, rowsThen: storedRows(event.device.id) });
    });
    const unsubscribe = t.app.deps.events.subscribe((e) => {
      if (e.sn === device.sn) browser.push(e);
    });
    try {
      const before = await storedRows(device.id);
      await t.app.gateway.uplink(device, 'property', Buffer.from(JSON.stringify({ params: { temp: 21 } })));
      await t.app.gateway.uplink(
        device,
        'property',
        Buffer.from(
          JSON.stringify({
            items: [
              { ts: Date.UTC(2025, 0, 1, 0, 0, 2), params: { temp: 23 } },
              { ts: Date.UTC(2025, 0, 1, 0, 0, 1), params: { temp: 22 } },
            ],
          }),
        ),
      );
      expect(committed.map((c) => c.event.items.map((i) => i.params.temp))).toEqual([[21], [23, 22]]);
      expect(committed[0]!.event.device).toEqual(device);
      expect(await committed[0]!.rowsThen).toBe(before + 1);
      expect(await committed[1]!.rowsThen).toBe(before + 3);
      // The browser stream coalesces a device's reports for a moment: wait for the newest value, not a time.
      await expect
        .poll(() => browser.at(-1), { timeout: 5000 })
        .toMatchObject({
          type: 'device.properties',
          values: { temp: 23 },
        });
    } finally {
      off();
      unsubscribe();
    }
  });

  it('emits nothing for a refused message, and stores nothing', async () => {
    const seen: DomainEvent[] = [];
    const off = t.app.deps.events.on('property.committed', (e) => seen.push(e));
    try {
      const before = await storedRows(device.id);
      // `nope` is not a property of the product; `door` must be a bool.
      await t.app.gateway.uplink(device, 'property', Buffer.from(JSON.stringify({ params: { nope: 1 } })));
      await t.app.gateway.uplink(device, 'property', Buffer.from(JSON.stringify({ params: { door: 3 } })));
      // The sentinel: a good message after the refused ones is the first and only event.
      await t.app.gateway.uplink(device, 'property', Buffer.from(JSON.stringify({ params: { door: true } })));
      expect(seen).toHaveLength(1);
      expect((seen[0] as DomainEventOf<'property.committed'>).items[0]!.params).toEqual({ door: true });
      expect(await storedRows(device.id)).toBe(before + 1);
    } finally {
      off();
    }
  });

  it('emits presence.changed on connect and disconnect', async () => {
    const seen: DomainEventOf<'presence.changed'>[] = [];
    const off = t.app.deps.events.on('presence.changed', (e) => seen.push(e));
    try {
      await t.app.gateway.connected(device, { ip: '127.0.0.1', protocol: 'mqtt/4' });
      await t.app.gateway.disconnected(device, 'test');
      expect(seen.map((e) => [e.device.sn, e.online, e.reason])).toEqual([
        [device.sn, 1, undefined],
        [device.sn, 0, 'test'],
      ]);
    } finally {
      off();
    }
  });

  it('emits config.reported after a stored config report, and no command.replied for an unknown command', async () => {
    const seen: string[] = [];
    const offs = [
      t.app.deps.events.on('config.reported', (e) => seen.push(`config ${e.device.sn} v${e.config.version}`)),
      t.app.deps.events.on('command.replied', (e) => seen.push(`reply ${e.reply.id}`)),
    ];
    try {
      const rejected0 = t.app.gateway.stats.rejected;
      await t.app.gateway.uplink(
        device,
        'cmd_reply',
        Buffer.from(JSON.stringify({ id: 'never-sent', code: 0 })),
      );
      expect(t.app.gateway.stats.rejected).toBe(rejected0 + 1);
      await t.app.gateway.uplink(device, 'config', Buffer.from(JSON.stringify({ version: 3, config: {} })));
      expect(seen).toEqual([`config ${device.sn} v3`]);
    } finally {
      for (const off of offs) off();
    }
  });

  it('has the OTA engine answer ota.report (one answerer), and acknowledges a report only with its answer', async () => {
    // The OTA plugin answers on a running app; a second answerer would split the reports, so it is refused.
    expect(() => t.app.deps.events.answer('ota.report', () => Promise.resolve({ ok: true }))).toThrow(
      /already has an answerer/,
    );
    const answer = t.app.deps.events.ask({
      type: 'ota.report',
      device,
      report: { id: 'no-such-upgrade', status: 2, progress: 10 },
    });
    expect(answer).toBeDefined();
    expect(await answer).toMatchObject({ ok: false, code: 10107 });
    // Through the gateway the refusal is counted as a rejected message of the device.
    const rejected0 = t.app.gateway.stats.rejected;
    await t.app.gateway.uplink(
      device,
      'ota',
      Buffer.from(JSON.stringify({ id: 'no-such-upgrade', status: 2, progress: 10 })),
    );
    expect(t.app.gateway.stats.rejected).toBe(rejected0 + 1);
  });
});
