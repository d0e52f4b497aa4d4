import type { FastifyBaseLogger } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeviceEvent } from '@cellhub/contract/realtime';
import {
  type Audience,
  createEventBus,
  type EventBus,
  NOTIFY_PAYLOAD_LIMIT,
  packPayloads,
} from './event-bus';

const quiet = () => undefined;
const log = { warn: quiet, info: quiet, debug: quiet, error: quiet } as unknown as FastifyBaseLogger;

const props = (
  sn: string,
  second: number,
  values: Record<string, number | string | boolean>,
): DeviceEvent => ({
  type: 'device.properties',
  sn,
  product_key: 'pk',
  ts: new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString(),
  values,
});
const online = (sn: string): DeviceEvent => ({
  type: 'device.online',
  sn,
  product_key: 'pk',
  online: 0,
  at: '2025-01-01T00:00:00.000Z',
  reason: 'keepalive',
});

describe('event bus coalescing', () => {
  let bus: EventBus;
  let got: [DeviceEvent, Audience][];
  beforeEach(() => {
    vi.useFakeTimers();
    bus = createEventBus({ log, coalesceMs: 250 });
    got = [];
    bus.subscribe((e, a) => got.push([e, a]));
  });
  afterEach(async () => {
    await bus.close();
    vi.useRealTimers();
  });

  it('merges property reports of one device within 250 ms, latest value per property and newest time', () => {
    for (let i = 0; i < 1000; i++) bus.publish(props('D1', i % 60, { t: i, [`p${i % 3}`]: i }), { uid: 7 });
    bus.publish(props('D2', 5, { t: 1 }), { uid: 8 });
    expect(got).toHaveLength(0);
    vi.advanceTimersByTime(250);
    expect(got.map(([e]) => e.sn)).toEqual(['D1', 'D2']);
    const [d1, audience] = got[0]!;
    expect(audience).toEqual({ uid: 7 });
    expect(d1).toMatchObject({
      ts: '2025-01-01T00:00:59.000Z',
      values: { t: 999, p0: 999, p1: 997, p2: 998 },
    });
    expect(bus.stats()).toMatchObject({ published: 1001, coalesced: 999 });

    // The next window starts empty.
    bus.publish(props('D1', 1, { t: 5 }), { uid: 7 });
    vi.advanceTimersByTime(250);
    expect(got).toHaveLength(3);
    expect(got[2]![0]).toMatchObject({ values: { t: 5 } });
  });

  it("sends a device's pending properties before its next other event, at once", () => {
    bus.publish(props('D1', 1, { t: 1 }), { uid: 7 });
    bus.publish(props('D2', 1, { t: 2 }), { uid: 7 });
    bus.publish(online('D1'), { uid: 7 });
    expect(got.map(([e]) => `${e.sn} ${e.type}`)).toEqual(['D1 device.properties', 'D1 device.online']);
    vi.advanceTimersByTime(250);
    expect(got.map(([e]) => e.sn)).toEqual(['D1', 'D1', 'D2']);
  });

  it('does not hold other events back', () => {
    bus.publish(online('D9'), { uid: null });
    expect(got).toHaveLength(1);
  });

  it('flushes pending properties on close', async () => {
    bus.publish(props('D1', 1, { t: 1 }), { uid: 7 });
    await bus.close();
    expect(got).toHaveLength(1);
  });

  it('keeps delivering when one listener throws', () => {
    const other: DeviceEvent[] = [];
    bus.subscribe(() => {
      throw new Error('boom');
    });
    bus.subscribe((e) => other.push(e));
    bus.publish(online('D1'), { uid: 1 });
    expect(got).toHaveLength(1);
    expect(other).toHaveLength(1);
  });

  it('stops a listener that unsubscribed', () => {
    const seen: DeviceEvent[] = [];
    const off = bus.subscribe((e) => seen.push(e));
    off();
    bus.publish(online('D1'), { uid: 1 });
    expect(seen).toHaveLength(0);
  });
});

describe('NOTIFY payloads', () => {
  it('pack a batch into payloads under 8000 bytes that carry every event', () => {
    const batch: [DeviceEvent, Audience][] = [];
    for (let i = 0; i < 500; i++)
      batch.push([props(`SN-${i}`, 1, { temperature: 21.5, label: 'é'.repeat(20) }), { uid: i }]);
    const stats = { oversizedDropped: 0 };
    const payloads = packPayloads('inst', batch, stats);
    expect(payloads.length).toBeGreaterThan(1);
    const back = payloads.flatMap((p) => {
      expect(Buffer.byteLength(p.payload)).toBeLessThanOrEqual(NOTIFY_PAYLOAD_LIMIT);
      const parsed = JSON.parse(p.payload) as { i: string; e: [DeviceEvent, number][] };
      expect(parsed.i).toBe('inst');
      expect(parsed.e).toHaveLength(p.count);
      return parsed.e;
    });
    expect(back.map(([e, uid]) => `${e.sn}/${uid}`)).toEqual(batch.map(([e, a]) => `${e.sn}/${a.uid}`));
    expect(stats.oversizedDropped).toBe(0);
  });

  it('leave out and count an event too big for one payload', () => {
    const stats = { oversizedDropped: 0 };
    const big = props('BIG', 1, { blob: 'x'.repeat(9000) });
    const payloads = packPayloads(
      'inst',
      [
        [big, { uid: 1 }],
        [online('D1'), { uid: 1 }],
      ],
      stats,
    );
    expect(stats.oversizedDropped).toBe(1);
    expect(payloads).toHaveLength(1);
    expect(payloads[0]!.count).toBe(1);
  });
});

describe('domain events', () => {
  const device = { id: 1, sn: 'D1', productKey: 'pk', uid: 7 };
  let bus: EventBus;
  beforeEach(() => {
    bus = createEventBus({ log, coalesceMs: 0 });
  });
  afterEach(async () => {
    await bus.close();
  });

  it('reach the handlers of their type only, past one that throws, and not after unsubscribing', () => {
    const got: string[] = [];
    bus.on('presence.changed', () => {
      throw new Error('boom');
    });
    const off = bus.on('presence.changed', (e) => got.push(`presence ${e.online}`));
    bus.on('property.committed', (e) => got.push(`property ${e.device.sn}`));
    bus.emit({ type: 'presence.changed', device, online: 1, at: '2025-01-01T00:00:00.000Z' });
    bus.emit({ type: 'property.committed', device, items: [{ ts: 1, params: { t: 1 } }] });
    off();
    bus.emit({ type: 'presence.changed', device, online: 0, at: '2025-01-01T00:00:01.000Z' });
    expect(got).toEqual(['presence 1', 'property D1']);
  });

  it('turn a committed property message into the browser event with its newest values, for its owner', () => {
    const seen: [DeviceEvent, Audience][] = [];
    bus.subscribe((e, a) => seen.push([e, a]));
    bus.emit({
      type: 'property.committed',
      device,
      items: [
        { ts: Date.UTC(2025, 0, 1, 0, 0, 5), params: { t: 5 } },
        { ts: Date.UTC(2025, 0, 1, 0, 0, 3), params: { t: 3 } },
      ],
    });
    expect(seen).toEqual([
      [
        {
          type: 'device.properties',
          sn: 'D1',
          product_key: 'pk',
          ts: '2025-01-01T00:00:05.000Z',
          values: { t: 5 },
        },
        { uid: 7 },
      ],
    ]);
  });

  it('turn a presence change into the browser event, for its owner, with the reason of an offline', () => {
    const seen: [DeviceEvent, Audience][] = [];
    bus.subscribe((e, a) => seen.push([e, a]));
    bus.emit({ type: 'presence.changed', device, online: 1, at: '2025-01-01T00:00:00.000Z' });
    bus.emit({
      type: 'presence.changed',
      device,
      online: 0,
      at: '2025-01-01T00:00:09.000Z',
      reason: 'keep-alive timeout',
    });
    expect(seen).toEqual([
      [
        { type: 'device.online', sn: 'D1', product_key: 'pk', online: 1, at: '2025-01-01T00:00:00.000Z' },
        { uid: 7 },
      ],
      [
        {
          type: 'device.online',
          sn: 'D1',
          product_key: 'pk',
          online: 0,
          at: '2025-01-01T00:00:09.000Z',
          reason: 'keep-alive timeout',
        },
        { uid: 7 },
      ],
    ]);
  });

  it('answer a request through its one answerer, and nobody once it left', async () => {
    const report = { id: 'u1', status: 2 };
    expect(bus.ask({ type: 'ota.report', device, report })).toBeUndefined();
    const stop = bus.answer('ota.report', (e) =>
      Promise.resolve(
        e.report.id === 'u1' ? { ok: true as const } : { ok: false as const, code: 1, reason: 'x' },
      ),
    );
    expect(() => bus.answer('ota.report', () => Promise.resolve({ ok: true }))).toThrow(/answerer/);
    expect(await bus.ask({ type: 'ota.report', device, report })).toEqual({ ok: true });
    stop();
    expect(bus.ask({ type: 'ota.report', device, report })).toBeUndefined();
  });
});
