import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fleet, RateGate, type FleetOptions } from './fleet';
import { startTestBroker, waitFor, type TestBroker } from './test-broker';

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.close();
});

const identities = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    sn: `${prefix}${i}`,
    product_key: 'pk_fleet',
    secret: 'x'.repeat(32),
  }));

const base = (): FleetOptions => ({
  url: broker.url,
  rate: 0,
  connectRate: 0,
  flapRatio: 0,
  offlineEvery: 60,
  offlineFor: 20,
  badRatio: 0,
  infoEvery: 0,
  properties: ['temperature', 'humidity', 'rssi'],
  bufferOffline: 0,
});

describe('rate gate', () => {
  it('spaces events to the rate asked', async () => {
    const gate = new RateGate(100);
    const start = Date.now();
    await Promise.all(Array.from({ length: 11 }, () => gate.take()));
    // 11 events at 100/s: the last one waits 100 ms.
    expect(Date.now() - start).toBeGreaterThanOrEqual(95);
    expect(Date.now() - start).toBeLessThan(400);
  });
});

describe('fleet', () => {
  it('connects every device and reports at the rate asked, each from its own connection', async () => {
    const fleet = new Fleet(identities('R', 5), { ...base(), rate: 10 });
    await fleet.start();
    expect(fleet.connectedCount()).toBe(5);
    await new Promise((r) => setTimeout(r, 1000));
    await fleet.stop();
    for (let i = 0; i < 5; i++) {
      const props = broker.bodies('/up/property', `R${i}`) as { params: Record<string, number> }[];
      // 10/s for 1 s, with timer slack either way
      expect(props.length).toBeGreaterThanOrEqual(7);
      expect(props.length).toBeLessThanOrEqual(12);
      expect(Object.keys(props[0]!.params)).toEqual(['temperature', 'humidity', 'rssi']);
      const info = broker.bodies('/up/info', `R${i}`)[0] as Record<string, unknown>;
      expect(info).toHaveProperty('imei');
      expect(info).toHaveProperty('csq');
    }
    expect(fleet.stats.errors).toBe(0);
    expect(fleet.stats.acked).toBe(fleet.stats.sent);
    expect(fleet.statusLine()).toMatch(/connected 0\/5 .*sent \d+ .*errors 0/);
  });

  it('paces connects with the connect rate', async () => {
    const fleet = new Fleet(identities('C', 6), { ...base(), connectRate: 20 });
    const start = Date.now();
    await fleet.start();
    // 6 connects at 20/s: the last starts 250 ms after the first.
    expect(Date.now() - start).toBeGreaterThanOrEqual(240);
    expect(fleet.connectedCount()).toBe(6);
    await fleet.stop();
  });

  it('takes flapping devices offline and back, and only those', async () => {
    const fleet = new Fleet(identities('F', 4), {
      ...base(),
      flapRatio: 0.5,
      offlineEvery: 0.2,
      offlineFor: 0.2,
      rate: 20,
      bufferOffline: 50,
    });
    await fleet.start();
    await waitFor(
      () => broker.bodies('/F0/up/status').length >= 4 && broker.bodies('/F1/up/status').length >= 4,
      4000,
    );
    await fleet.stop();
    for (const sn of ['F0', 'F1']) {
      const statuses = broker.bodies(`/${sn}/up/status`) as { online: number }[];
      // Online and offline alternate: every outage is announced (goodbye or will) before the next connect.
      statuses.forEach((s, i) => expect(s.online).toBe(i % 2 === 0 ? 1 : 0));
    }
    // A clean stop ends with DISCONNECT only: the broker's connection event is what marks them offline.
    for (const sn of ['F2', 'F3']) expect(broker.bodies(`/${sn}/up/status`)).toEqual([{ online: 1 }]);
    // Readings taken during outages come back as batches.
    const batches = ['F0', 'F1'].flatMap((sn) =>
      (broker.bodies('/up/property', sn) as { items?: unknown[] }[]).filter((b) => b.items),
    );
    expect(batches.length).toBeGreaterThan(0);
  });

  it('reconnects a device the broker dropped', async () => {
    const fleet = new Fleet(identities('D', 1), base());
    await fleet.start();
    expect(broker.kick('D0')).toBe(true);
    await waitFor(() => fleet.stats.connects === 2 && fleet.connectedCount() === 1, 4000);
    await fleet.stop();
  });

  it('replaces the share of reports asked with broken messages', async () => {
    const fleet = new Fleet(identities('B', 2), { ...base(), rate: 50, badRatio: 1 });
    await fleet.start();
    await waitFor(() => fleet.stats.bad >= 10);
    await fleet.stop();
    expect(
      broker.bodies('/up/property', 'B0').every((b) => typeof b === 'string' || !('id' in (b as object))),
    ).toBe(true);
  });
});
