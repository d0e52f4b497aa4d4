// Values of a variable <-> the register bytes on the wire: data formats, byte orders, decimal places.
import { type ByteOrder, type DataFormat, MAX_DECIMALS, ModbusError, type RegisterType } from './types';

/** Registers (16-bit words) a format takes in a holding or input register; bits count one coil. */
export const REGISTER_COUNT: Record<DataFormat, number> = {
  bool: 1,
  int16: 1,
  uint16: 1,
  float16: 1,
  int32: 2,
  uint32: 2,
  float32: 2,
  double: 4,
};

export const registerCount = (format: DataFormat): number => REGISTER_COUNT[format];

/** Coils and discrete inputs hold single bits: bool only. Registers take every format. */
export function formatsFor(type: RegisterType): readonly DataFormat[] {
  return type === 'coil' || type === 'discrete_input'
    ? ['bool']
    : ['bool', 'int16', 'uint16', 'float16', 'int32', 'uint32', 'float32', 'double'];
}

export const isBitType = (type: RegisterType): boolean => type === 'coil' || type === 'discrete_input';
export const isWritableType = (type: RegisterType): boolean => type === 'coil' || type === 'holding';

/** Byte orders a format can use: AB/BA for one register, ABCD/CDAB/BADC/DCBA for two or four; none for bits. */
export function byteOrdersFor(format: DataFormat, type: RegisterType = 'holding'): readonly ByteOrder[] {
  if (isBitType(type)) return [];
  return REGISTER_COUNT[format] === 1 ? ['AB', 'BA'] : ['ABCD', 'CDAB', 'BADC', 'DCBA'];
}

export const defaultByteOrder = (format: DataFormat): ByteOrder =>
  REGISTER_COUNT[format] === 1 ? 'AB' : 'ABCD';

/** Checks a variable's register type, format, byte order and decimals; throws ModbusError 80005 when they do not fit. */
export function checkFormat(type: RegisterType, format: DataFormat, order?: ByteOrder, decimals = 0): void {
  if (!formatsFor(type).includes(format))
    throw new ModbusError(80005, `${format} does not fit a ${type.replace('_', ' ')} (bool only)`);
  if (order !== undefined && !isBitType(type) && !byteOrdersFor(format, type).includes(order))
    throw new ModbusError(
      80005,
      `byte order ${order} does not fit ${format} (${byteOrdersFor(format).join(', ')})`,
    );
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS)
    throw new ModbusError(80005, `decimal places must be 0-${MAX_DECIMALS}`);
}

/**
 * Position on the wire of each big-endian byte (A = most significant). The letters name the 32-bit pattern:
 * ABCD big-endian, CDAB words swapped, BADC bytes swapped within words, DCBA little-endian. A 64-bit double
 * takes the same rule over four words: word order reversed for CDAB/DCBA, bytes swapped in each word for BADC/DCBA.
 */
function wirePositions(size: number, order: ByteOrder): number[] {
  const words = size / 2;
  const reverseWords = order === 'CDAB' || order === 'DCBA';
  const swapBytes = order === 'BA' || order === 'BADC' || order === 'DCBA';
  const pos: number[] = [];
  for (let i = 0; i < size; i++) {
    const w = Math.floor(i / 2);
    const b = i % 2;
    const wireWord = reverseWords ? words - 1 - w : w;
    const wireByte = swapBytes ? 1 - b : b;
    pos.push(wireWord * 2 + wireByte);
  }
  return pos;
}

function toCanonical(wire: Uint8Array, offset: number, size: number, order: ByteOrder): DataView {
  const pos = wirePositions(size, order);
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = wire[offset + pos[i]!]!;
  return new DataView(out.buffer);
}

function toWire(canonical: Uint8Array, order: ByteOrder): Uint8Array {
  const pos = wirePositions(canonical.length, order);
  const out = new Uint8Array(canonical.length);
  for (let i = 0; i < canonical.length; i++) out[pos[i]!] = canonical[i]!;
  return out;
}

export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** IEEE 754 binary16 bits of `v`, rounded to nearest even; overflow gives infinity. */
export function floatToHalf(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** -24 / 2) return sign; // rounds to zero
  if (a < 2 ** -14) {
    // subnormal: units of 2^-24
    const m = roundEven(a / 2 ** -24);
    return sign | m; // m may reach 1024, which is the smallest normal: the bits agree
  }
  let exp = Math.floor(Math.log2(a));
  if (2 ** exp > a) exp--;
  else if (2 ** (exp + 1) <= a) exp++;
  let m = roundEven((a / 2 ** exp - 1) * 1024);
  if (m === 1024) {
    m = 0;
    exp++;
  }
  if (exp > 15) return sign | 0x7c00;
  return sign | ((exp + 15) << 10) | m;
}

function roundEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Reads a value from register data as it came off the wire (`data` of an FC 3/4 answer; two bytes per register,
 * `offset` in bytes). bool in a register is true when the register is not zero.
 */
export function decodeValue(
  data: Uint8Array,
  offset: number,
  format: DataFormat,
  order?: ByteOrder,
): number | boolean {
  const size = REGISTER_COUNT[format] * 2;
  if (offset < 0 || offset + size > data.length)
    throw new ModbusError(81003, `${format} needs ${size} bytes at ${offset}, the answer has ${data.length}`);
  const dv = toCanonical(data, offset, size, order ?? defaultByteOrder(format));
  switch (format) {
    case 'bool':
      return dv.getUint16(0) !== 0;
    case 'int16':
      return dv.getInt16(0);
    case 'uint16':
      return dv.getUint16(0);
    case 'float16':
      return halfToFloat(dv.getUint16(0));
    case 'int32':
      return dv.getInt32(0);
    case 'uint32':
      return dv.getUint32(0);
    case 'float32':
      return dv.getFloat32(0);
    case 'double':
      return dv.getFloat64(0);
  }
}

const INT_RANGE: Partial<Record<DataFormat, [number, number]>> = {
  int16: [-0x8000, 0x7fff],
  uint16: [0, 0xffff],
  int32: [-0x80000000, 0x7fffffff],
  uint32: [0, 0xffffffff],
};

const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * The wire bytes of a value (2 per register). Integers are rounded to the nearest integer; values that do not
 * fit the format throw ModbusError 80008.
 */
export function encodeValue(value: number | boolean, format: DataFormat, order?: ByteOrder): Uint8Array {
  const size = REGISTER_COUNT[format] * 2;
  const buf = new Uint8Array(size);
  const dv = new DataView(buf.buffer);
  const n = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  if (!Number.isFinite(n)) throw new ModbusError(80008, `${String(value)} is not a finite number`);
  const range = INT_RANGE[format];
  if (range) {
    const r = Math.round(n);
    if (r < range[0] || r > range[1])
      throw new ModbusError(80008, `${n} is outside the ${format} range ${range[0]}..${range[1]}`);
    if (format === 'int16') dv.setInt16(0, r);
    else if (format === 'uint16') dv.setUint16(0, r);
    else if (format === 'int32') dv.setInt32(0, r);
    else dv.setUint32(0, r);
  } else if (format === 'bool') {
    dv.setUint16(0, n !== 0 ? 1 : 0);
  } else if (format === 'float16') {
    if (Math.abs(n) > 65504) throw new ModbusError(80008, `${n} is outside the float16 range ±65504`);
    dv.setUint16(0, floatToHalf(n));
  } else if (format === 'float32') {
    if (Math.abs(n) > FLOAT32_MAX) throw new ModbusError(80008, `${n} is outside the float32 range`);
    dv.setFloat32(0, n);
  } else {
    dv.setFloat64(0, n);
  }
  return toWire(buf, order ?? defaultByteOrder(format));
}

/** Register words (for FC 6/16) from wire bytes. */
export function bytesToRegisters(bytes: Uint8Array): number[] {
  return Array.from({ length: bytes.length >> 1 }, (_, i) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!);
}

/** Rounds to the variable's decimal places (0-4); booleans pass through. */
export function roundDecimals<T extends number | boolean>(value: T, decimals: number): T {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value;
  const d = Math.max(0, Math.min(MAX_DECIMALS, Math.trunc(decimals)));
  const f = 10 ** d;
  return (Math.round(value * f) / f) as T;
}
