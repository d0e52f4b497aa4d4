// Modbus RTU CRC-16: initial value 0xFFFF, reflected polynomial 0xA001, sent low byte first.

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xa001 : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-16/MODBUS of `bytes[start, end)`. */
export function crc16(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE[(crc ^ bytes[i]!) & 0xff]!;
  return crc;
}

/** The frame body followed by its CRC, low byte first. */
export function withCrc(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 2);
  out.set(body);
  const crc = crc16(body);
  out[body.length] = crc & 0xff;
  out[body.length + 1] = crc >>> 8;
  return out;
}

/** True when the last two bytes of `frame[0, length)` are the CRC of the bytes before them. */
export function crcOk(frame: Uint8Array, length = frame.length): boolean {
  if (length < 3 || length > frame.length) return false;
  const crc = crc16(frame, 0, length - 2);
  return frame[length - 2] === (crc & 0xff) && frame[length - 1] === crc >>> 8;
}

/** Lower-case hex without separators, as `P/down/cmd` and the API show bytes. */
export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** Parses hex (spaces allowed between bytes); undefined when it is not whole bytes of hex. */
export function fromHex(hex: string): Uint8Array | undefined {
  const clean = hex.replace(/\s+/g, '');
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) return undefined;
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}
