import { describe, expect, it } from 'vitest';
import { sampleDevice } from './sample-device';
import { applyDeviceEvent } from './live-rows';

const page = () => ({ data: [sampleDevice({ sn: 'A', online: 0 }), sampleDevice({ sn: 'B' })], total: 2 });

describe('applyDeviceEvent', () => {
  it('turns a row online and stamps last seen', () => {
    const p = page();
    const next = applyDeviceEvent(p, {
      type: 'device.online',
      sn: 'A',
      product_key: 'pk0001',
      online: 1,
      at: '2024-05-01T00:00:00.000Z',
    });
    expect(next!.data[0]).toMatchObject({ online: 1, lastcommunicationat: '2024-05-01T00:00:00.000Z' });
    expect(next!.data[1]).toBe(p.data[1]);
    expect(p.data[0]!.online).toBe(0);
  });

  it('merges property values and keeps the others', () => {
    const next = applyDeviceEvent(page(), {
      type: 'device.properties',
      sn: 'B',
      product_key: 'pk0001',
      ts: '2024-05-01T00:00:00.000Z',
      values: { temp: 30 },
    });
    expect(next!.data[1]!.last_values).toEqual({ temp: 30, on: true });
  });

  it('takes only list fields from an info event', () => {
    const next = applyDeviceEvent(page(), {
      type: 'device.info',
      sn: 'A',
      product_key: 'pk0001',
      fields: { rssi: -60, fw_version: '2.0', secret: 'x', uid: 99 },
    });
    expect(next!.data[0]).toMatchObject({ rssi: -60, fw_version: '2.0', uid: 2 });
    expect(next!.data[0]).not.toHaveProperty('secret');
  });

  it('returns the same page when the event is about another device', () => {
    const p = page();
    const e = { type: 'device.online', sn: 'Z', product_key: 'pk', online: 1, at: 'x' } as const;
    expect(applyDeviceEvent(p, e)).toBe(p);
    expect(applyDeviceEvent(undefined, e)).toBeUndefined();
  });
});
