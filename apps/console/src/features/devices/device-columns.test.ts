import { describe, expect, it } from 'vitest';
import { sampleDevice } from './sample-device';
import { cellText, COLUMNS_STORAGE_KEY, DEFAULT_COLUMNS, loadColumns, saveColumns } from './device-columns';

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
    expect(cellText(d, 'last_values', on)).toBe('temp=21.5, on=true');
    expect(cellText(d, 'latlng', on)).toBe('31.2,121.5');
    expect(cellText(d, 'config_version', on)).toBe('3/4');
    expect(cellText(d, 'csq', on)).toBe('');
    expect(cellText(d, 'iccid', on)).toBe('89860012345678901234');
    expect(cellText(sampleDevice({ owner: null }), 'owner', on)).toBe('');
    expect(cellText(d, 'createdat', on)).toMatch(/^2024-01-0[12] \d\d:\d\d:05$/);
  });
});
