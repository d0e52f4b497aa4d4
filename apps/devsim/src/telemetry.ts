/**
 * Plausible readings for one DTU: each value wanders in a mean-reverting random walk, so charts look like a
 * sensor in a room and a modem in a field, not white noise. A seeded generator keeps tests and demos repeatable.
 */

/** mulberry32: small, fast, good enough for simulated sensors (not for anything secret). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable number from a string, to give every sn its own seed. */
export function hashSeed(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

interface Walk {
  value: number;
  mean: number;
  min: number;
  max: number;
  /** Largest random step per tick. */
  step: number;
  /** Share of the distance to the mean recovered per tick. */
  pull: number;
  decimals: number;
}

const round = (v: number, decimals: number) => Math.round(v * 10 ** decimals) / 10 ** decimals;

function advance(w: Walk, random: () => number): number {
  const next = w.value + (random() * 2 - 1) * w.step + (w.mean - w.value) * w.pull;
  w.value = Math.min(w.max, Math.max(w.min, next));
  return round(w.value, w.decimals);
}

/** LTE RSSI (dBm) to the 0..31 CSQ of AT+CSQ (3GPP TS 27.007). */
export const rssiToCsq = (rssi: number) => Math.max(0, Math.min(31, Math.round((rssi + 113) / 2)));

export type PropertyValue = number | string | boolean;

/** Every key a simulated device can report on `P/up/property`. */
export const PROPERTY_KEYS = ['temperature', 'humidity', 'rssi', 'csq', 'voltage'] as const;
export type PropertyKey = (typeof PROPERTY_KEYS)[number];

export class Telemetry {
  private readonly random: () => number;
  private readonly walks: Record<'temperature' | 'humidity' | 'rssi' | 'voltage', Walk>;

  constructor(seed: number) {
    this.random = seededRandom(seed);
    const r = this.random;
    // Each device gets its own climate and radio conditions, so a fleet spreads over a realistic range.
    const tMean = 16 + r() * 14;
    const hMean = 35 + r() * 35;
    const rMean = -100 + r() * 40;
    this.walks = {
      temperature: { value: tMean, mean: tMean, min: -30, max: 70, step: 0.3, pull: 0.05, decimals: 1 },
      humidity: { value: hMean, mean: hMean, min: 5, max: 98, step: 1, pull: 0.05, decimals: 0 },
      rssi: { value: rMean, mean: rMean, min: -113, max: -51, step: 2, pull: 0.1, decimals: 0 },
      voltage: { value: 12, mean: 12, min: 10.8, max: 13.2, step: 0.05, pull: 0.2, decimals: 2 },
    };
  }

  /** One reading of the given keys; every walk advances, so values drift even when not reported. */
  sample(keys: readonly PropertyKey[] = ['temperature', 'humidity', 'rssi']): Record<string, PropertyValue> {
    const all: Record<PropertyKey, number> = {
      temperature: advance(this.walks.temperature, this.random),
      humidity: advance(this.walks.humidity, this.random),
      rssi: advance(this.walks.rssi, this.random),
      csq: 0,
      voltage: advance(this.walks.voltage, this.random),
    };
    all.csq = rssiToCsq(all.rssi);
    const out: Record<string, PropertyValue> = {};
    for (const k of keys) out[k] = all[k];
    return out;
  }

  /** The radio part of `P/up/info` as it is now. */
  signal(): { rssi: number; csq: number; signal_strength: number } {
    const rssi = round(this.walks.rssi.value, 0);
    const csq = rssiToCsq(rssi);
    // signal_strength as the percentage many DTU web pages show (CSQ 31 = 100 %).
    return { rssi, csq, signal_strength: Math.round((csq / 31) * 100) };
  }
}

/** Fixed identity fields of `P/up/info` for a device, derived from its sn so they stay the same across runs. */
export function deviceInfo(sn: string, fwVersion = '1.0.0'): Record<string, string | number> {
  const r = seededRandom(hashSeed(sn));
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
  return {
    fw_version: fwVersion,
    hw_version: 'DTU-4G-A1',
    bootloader_version: '1.0.2',
    imei: `86${digits(13)}`,
    imsi: `46000${digits(10)}`,
    iccid: `898600${digits(14)}`,
    cellular_mode: 'LTE',
    band: ['B1', 'B3', 'B5', 'B8', 'B38', 'B39', 'B40', 'B41'][Math.floor(r() * 8)] ?? 'B3',
    pci: Math.floor(r() * 504),
    cell_id: Math.floor(r() * 268435455)
      .toString(16)
      .toUpperCase(),
    ipaddress: `10.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${1 + Math.floor(r() * 254)}`,
    latitude: round(22 + r() * 18, 6),
    longitude: round(102 + r() * 20, 6),
    uplink: 'cellular',
    login_protocol: 'mqtt',
  };
}
