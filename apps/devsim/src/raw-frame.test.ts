import { describe, expect, it } from 'vitest';
import { encodeRawFrame } from './raw-frame';

describe('raw reading frames', () => {
  it('packs temperature x10 as int16, humidity as uint8 and RSSI as int8, big-endian', () => {
    expect(Buffer.from(encodeRawFrame({ temperature: 25, humidity: 55, rssi: -71 })).toString('hex')).toBe(
      '0100fa37b9',
    );
    expect(Buffer.from(encodeRawFrame({ temperature: -1, humidity: 0, rssi: -113 })).toString('hex')).toBe(
      '01fff6008f',
    );
    // Out of range values are clamped, missing ones are 0.
    expect(Buffer.from(encodeRawFrame({ humidity: 300 })).toString('hex')).toBe('010000ff00');
  });
});
