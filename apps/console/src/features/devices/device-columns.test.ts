import { describe, expect, it } from 'vitest';
import { sampleDevice } from './sample-device';
import {
  cellText,
  COLUMNS_STORAGE_KEY,
  DEFAULT_COLUMNS,
  exportTable,
  loadColumns,
  saveColumns,
} from './device-columns';
import { formatValues } from './property-labels';

class MemoryStorage {
  private m = new Map<string, string>();
  getItem = (k: string) => this.m.get(k) ?? null;
  setItem = (k: string, v: string) => void this.m.set(k, v);
}
const storage = () => new MemoryStorage() as unknown as Storage;

describe('column choice', () => {
  it('starts with the defaults and falls back to them on a damaged value', () => {
    const s = storage();
    expect(loadColumns(s)).toEqual(DEFAULT_COLUMNS);
    s.setItem(COLUMNS_STORAGE_KEY, '{not json');
    expect(loadColumns(s)).toEqual(DEFAULT_COLUMNS);
    s.setItem(COLUMNS_STORAGE_KEY, JSON.stringify(['nope']));
    expect(loadColumns(s)).toEqual(DEFAULT_COLUMNS);
  });

  it('keeps the choice in table order and drops unknown names', () => {
    const s = storage();
    expect(saveColumns(['imei', 'sn', 'band'], s)).toEqual(['sn', 'imei', 'band']);
    s.setItem(COLUMNS_STORAGE_KEY, JSON.stringify(['sn', 'gone', 'rssi']));
    expect(loadColumns(s)).toEqual(['sn', 'rssi']);
  });
});

describe('cellText', () => {
  const on = (o: 0 | 1) => (o ? 'Online' : 'Offline');
  it('renders each kind of cell as export text', () => {
    const d = sampleDevice();
    expect(cellText(d, 'online', on)).toBe('Online');
    expect(cellText(d, 'last_values', on)).toBe('on true, temp 21.5');
    expect(cellText(d, 'latlng', on)).toBe('31.2,121.5');
    expect(cellText(d, 'config_version', on)).toBe('3/4');
    expect(cellText(d, 'csq', on)).toBe('');
    expect(cellText(d, 'iccid', on)).toBe('89860012345678901234');
    expect(cellText(sampleDevice({ owner: null }), 'owner', on)).toBe('');
    expect(cellText(d, 'createdat', on)).toMatch(/^2024-01-0[12] \d\d:\d\d:05$/);
  });
});

const DEFS = new Map([
  [
    'pk1',
    [
      { key: 'temperature', name: '温度', name_us: 'Temperature', unit: '°C' },
      { key: 'humidity', name: '湿度', name_us: '', unit: '%' },
      { key: 'rssi', name: '信号', name_us: 'Signal', unit: 'dBm' },
    ],
  ],
]);

describe("latest data in the product's words", () => {
  const values = { humidity: 45, rssi: -89, temperature: 30.5, extra: 'x' };
  it('names properties as the product does, in its order, with units', () => {
    expect(formatValues(values, DEFS.get('pk1'), 'zh-CN')).toBe(
      '温度 30.5 °C, 湿度 45 %, 信号 -89 dBm, extra x',
    );
    // name_us in English; a property without one keeps its Chinese name rather than its key.
    expect(formatValues(values, DEFS.get('pk1'), 'en-US')).toBe(
      'Temperature 30.5 °C, 湿度 45 %, Signal -89 dBm, extra x',
    );
    expect(formatValues({ humidity: 45 }, undefined, 'en-US')).toBe('humidity 45');
  });
});

describe('exportTable', () => {
  const on = (o: 0 | 1) => (o ? 'Online' : 'Offline');
  const rows = [
    sampleDevice({
      sn: 'A',
      product_key: 'pk1',
      rssi: -89,
      last_values: { humidity: 45, rssi: -89, temperature: 30.5 },
    }),
    sampleDevice({ sn: 'B', product_key: 'pk2', rssi: null, last_values: { volt: 3.3 } }),
  ];
  const table = (lang: 'zh-CN' | 'en-US') =>
    exportTable(rows, ['sn', 'last_values', 'rssi', 'iccid'], {
      header: (c) => `col.${c}`,
      onlineText: on,
      defs: DEFS,
      lang,
    });

  it('writes one column per property, named with its unit, and numbers as numbers', () => {
    expect(table('zh-CN')).toEqual({
      headers: ['col.sn', '温度 (°C)', '湿度 (%)', '信号 (dBm)', 'volt', 'col.rssi', 'col.iccid'],
      rows: [
        ['A', 30.5, 45, -89, '', -89, '89860012345678901234'],
        ['B', '', '', '', 3.3, '', '89860012345678901234'],
      ],
    });
    expect(table('en-US').headers.slice(1, 4)).toEqual(['Temperature (°C)', '湿度 (%)', 'Signal (dBm)']);
  });

  it('leaves the property columns out when latest data is not shown', () => {
    const t = exportTable(rows, ['sn', 'online'], {
      header: (c) => c,
      onlineText: on,
      defs: DEFS,
      lang: 'zh-CN',
    });
    expect(t.headers).toEqual(['sn', 'online']);
    expect(t.rows[0]).toEqual(['A', 'Online']);
  });
});
