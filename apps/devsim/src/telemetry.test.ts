import { describe, expect, it } from 'vitest';
import { deviceInfo, rssiToCsq, Telemetry } from './telemetry';

describe('telemetry', () => {
  it('is repeatable for one seed and differs between devices', () => {
    const a = new Telemetry(42);
    const b = new Telemetry(42);
    const c = new Telemetry(43);
    const sa = Array.from({ length: 5 }, () => a.sample());
    expect(Array.from({ length: 5 }, () => b.sample())).toEqual(sa);
    expect(Array.from({ length: 5 }, () => c.sample())).not.toEqual(sa);
  });

  it('drifts in small steps and stays in physical ranges', () => {
    const t = new Telemetry(7);
    let prev = t.sample(['temperature', 'humidity', 'rssi', 'csq', 'voltage']);
    const temps = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const s = t.sample(['temperature', 'humidity', 'rssi', 'csq', 'voltage']) as Record<string, number>;
      const p = prev as Record<string, number>;
      expect(Math.abs(s.temperature! - p.temperature!)).toBeLessThan(3);
      expect(s.humidity).toBeGreaterThanOrEqual(5);
      expect(s.humidity).toBeLessThanOrEqual(98);
      expect(s.rssi).toBeGreaterThanOrEqual(-113);
      expect(s.rssi).toBeLessThanOrEqual(-51);
      expect(s.csq).toBe(rssiToCsq(s.rssi!));
      temps.add(s.temperature!);
      prev = s;
    }
    // A random walk, not a constant.
    expect(temps.size).toBeGreaterThan(20);
  });

  it('reports only the keys asked for', () => {
    expect(Object.keys(new Telemetry(1).sample(['humidity']))).toEqual(['humidity']);
  });

  it('maps RSSI to CSQ as AT+CSQ does', () => {
    expect(rssiToCsq(-113)).toBe(0);
    expect(rssiToCsq(-51)).toBe(31);
    expect(rssiToCsq(-73)).toBe(20);
    expect(rssiToCsq(-140)).toBe(0);
  });

  it('gives each sn stable identity fields of P/up/info', () => {
    const info = deviceInfo('SIM000001');
    expect(deviceInfo('SIM000001')).toEqual(info);
    expect(info.imei).toMatch(/^\d{15}$/);
    expect(info.iccid).toMatch(/^\d{20}$/);
    expect(deviceInfo('SIM000002').imei).not.toBe(info.imei);
  });
});
