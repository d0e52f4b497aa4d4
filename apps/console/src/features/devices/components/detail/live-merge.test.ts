import type { DeviceDetail } from '@cellhub/contract/devices';
import { describe, expect, it } from 'vitest';
import { applyDeviceEvent } from './live-merge';

const base = {
  sn: 'D1',
  product_key: 'pk',
  uid: 7,
  online: 0,
  activatedat: null,
  lastcommunicationat: null,
  rssi: null,
  fw_version: '1.0',
  config_version: 1,
  expect_config_version: 2,
  config_version_different: true,
  properties: [{ key: 'temp', ts: '2030-01-01T00:00:10.000Z', value: 20 }],
} as unknown as DeviceDetail;

describe('applyDeviceEvent', () => {
  it('marks the device online with the time, and activated on its first connect', () => {
    const d = applyDeviceEvent(base, {
      type: 'device.online',
      sn: 'D1',
      product_key: 'pk',
      online: 1,
      at: '2030-01-01T00:01:00.000Z',
    });
    expect(d).toMatchObject({ online: 1, lastcommunicationat: '2030-01-01T00:01:00.000Z' });
    expect(d.activatedat).toBe('2030-01-01T00:01:00.000Z');
  });

  it('does not activate a stock device (no owner) on its factory test connection', () => {
    const d = applyDeviceEvent(
      { ...base, uid: null },
      { type: 'device.online', sn: 'D1', product_key: 'pk', online: 1, at: '2030-01-01T00:01:00.000Z' },
    );
    expect(d).toMatchObject({ online: 1, activatedat: null });
  });

  it('takes the info fields it knows and ignores the rest', () => {
    const d = applyDeviceEvent(base, {
      type: 'device.info',
      sn: 'D1',
      product_key: 'pk',
      fields: { rssi: -71, fw_version: '1.1', secret: 'x' },
    });
    expect(d.rssi).toBe(-71);
    expect(d.fw_version).toBe('1.1');
    expect((d as unknown as Record<string, unknown>).secret).toBeUndefined();
  });

  it('merges property values, keeping the newest per key', () => {
    const newer = applyDeviceEvent(base, {
      type: 'device.properties',
      sn: 'D1',
      product_key: 'pk',
      ts: '2030-01-01T00:00:20.000Z',
      values: { temp: 21, hum: 40 },
    });
    expect(newer.properties.map((p) => [p.key, p.value])).toEqual([
      ['hum', 40],
      ['temp', 21],
    ]);
    const older = applyDeviceEvent(newer, {
      type: 'device.properties',
      sn: 'D1',
      product_key: 'pk',
      ts: '2030-01-01T00:00:15.000Z',
      values: { temp: 5 },
    });
    expect(older.properties.find((p) => p.key === 'temp')?.value).toBe(21);
  });

  it('updates the config versions and ignores other devices', () => {
    const d = applyDeviceEvent(base, {
      type: 'device.config',
      sn: 'D1',
      product_key: 'pk',
      config_version: 2,
      expect_config_version: 2,
      config_version_different: false,
    });
    expect(d).toMatchObject({ config_version: 2, config_version_different: false });
    const other = applyDeviceEvent(base, {
      ...({} as object),
      type: 'device.online',
      sn: 'D2',
      product_key: 'pk',
      online: 1,
      at: 'x',
    });
    expect(other).toBe(base);
  });
});
