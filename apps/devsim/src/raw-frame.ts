import type { PropertyValue } from './telemetry';

/**
 * The binary reading of a sensor without JSON (`--raw-frames`), sent on P/up/raw for a product whose decoding script
 * turns it into properties (docs/scripts.md has the matching script):
 * byte 0 = 0x01 (frame type), bytes 1-2 = temperature x 10 (int16, big-endian), byte 3 = humidity % (uint8),
 * byte 4 = RSSI dBm (int8).
 */
export const RAW_FRAME_TYPE = 0x01;

export function encodeRawFrame(reading: Record<string, PropertyValue>): Uint8Array {
  const num = (k: string) => (typeof reading[k] === 'number' ? reading[k] : 0);
  const frame = new Uint8Array(5);
  const view = new DataView(frame.buffer);
  frame[0] = RAW_FRAME_TYPE;
  view.setInt16(1, Math.max(-32768, Math.min(32767, Math.round(num('temperature') * 10))));
  frame[3] = Math.max(0, Math.min(255, Math.round(num('humidity'))));
  view.setInt8(4, Math.max(-128, Math.min(127, Math.round(num('rssi')))));
  return frame;
}

/** The decoding script for these frames, as stored for the demo product (the same JavaScript runs in the server). */
export const RAW_FRAME_SCRIPT = `// Frames of devsim --raw-frames: 01 <temperature x10 int16> <humidity uint8> <rssi int8>
function decode(bytes, ctx) {
  if (bytes.length !== 5 || bytes[0] !== 0x01) throw new Error('not a reading frame: ' + ctx.hex);
  var t = (bytes[1] << 8) | bytes[2];
  if (t & 0x8000) t -= 0x10000;
  var rssi = bytes[4] > 127 ? bytes[4] - 256 : bytes[4];
  return { properties: { temperature: t / 10, humidity: bytes[3], rssi: rssi } };
}

// A command goes out as 0xA5, the length, then the text's bytes (hex commands as they are).
function encode(command, ctx) {
  if (command.type === 'hex') return command.data;
  var out = [0xa5, command.data.length];
  for (var i = 0; i < command.data.length; i++) out.push(command.data.charCodeAt(i) & 0xff);
  return out;
}
`;
