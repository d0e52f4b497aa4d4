import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  byteOrdersFor,
  checkFormat,
  decodeValue,
  encodeValue,
  floatToHalf,
  formatsFor,
  halfToFloat,
  registerCount,
  roundDecimals,
} from './codec';
import { fromHex, toHex } from './crc';
import { type ByteOrder, DATA_FORMATS, type DataFormat, ModbusError, REGISTER_TYPES } from './types';

const hex = (s: string) => fromHex(s)!;

describe('byte orders', () => {
  it('lays out the table of docs/modbus.md', () => {
    const table: [DataFormat, number, ByteOrder, string][] = [
      ['int16', 0x1234, 'AB', '1234'],
      ['int16', 0x1234, 'BA', '3412'],
      ['uint16', 65535, 'AB', 'ffff'],
      ['int16', -2, 'AB', 'fffe'],
      ['float16', 1, 'AB', '3c00'],
      ['float16', -2.5, 'BA', '00c1'],
      ['float32', 123.456, 'ABCD', '42f6e979'],
      ['float32', 123.456, 'CDAB', 'e97942f6'],
      ['float32', 123.456, 'BADC', 'f64279e9'],
      ['float32', 123.456, 'DCBA', '79e9f642'],
      ['int32', 0x01020304, 'ABCD', '01020304'],
      ['int32', 0x01020304, 'CDAB', '03040102'],
      ['int32', 0x01020304, 'BADC', '02010403'],
      ['int32', 0x01020304, 'DCBA', '04030201'],
      ['uint32', 0xfffffffe, 'ABCD', 'fffffffe'],
      ['double', 1, 'ABCD', '3ff0000000000000'],
      ['double', 1, 'CDAB', '000000000000' + '3ff0'],
      ['double', 1, 'BADC', 'f03f000000000000'],
      ['double', 1, 'DCBA', '000000000000f03f'],
      ['bool', true, 'AB', '0001'],
    ].map((r) => r as [DataFormat, number, ByteOrder, string]);
    for (const [format, value, order, wire] of table) {
      expect(toHex(encodeValue(value, format, order)), `${format} ${order}`).toBe(wire);
      const back = decodeValue(hex(wire), 0, format, order);
      if (format === 'float32') expect(back).toBeCloseTo(value, 4);
      else expect(back).toBe(format === 'bool' ? true : value);
    }
  });

  it('round-trips every format in every byte order it allows', () => {
    const valueArb: Record<DataFormat, fc.Arbitrary<number | boolean>> = {
      bool: fc.boolean(),
      int16: fc.integer({ min: -0x8000, max: 0x7fff }),
      uint16: fc.integer({ min: 0, max: 0xffff }),
      float16: fc
        .integer({ min: 0, max: 0xffff })
        .map(halfToFloat)
        .filter((v) => Number.isFinite(v)),
      int32: fc.integer({ min: -0x80000000, max: 0x7fffffff }),
      uint32: fc.integer({ min: 0, max: 0xffffffff }),
      float32: fc.float({ noNaN: true, noDefaultInfinity: true }),
      double: fc.double({ noNaN: true, noDefaultInfinity: true }),
    };
    for (const format of DATA_FORMATS) {
      for (const order of byteOrdersFor(format)) {
        fc.assert(
          fc.property(valueArb[format], fc.nat(6), (v, pad) => {
            const wire = encodeValue(v, format, order);
            expect(wire.length).toBe(registerCount(format) * 2);
            const framed = new Uint8Array(pad * 2 + wire.length);
            framed.set(wire, pad * 2);
            expect(decodeValue(framed, pad * 2, format, order)).toBe(v);
          }),
          { numRuns: 150 },
        );
      }
    }
  });

  it('converts half floats both ways for all 65536 bit patterns', () => {
    for (let h = 0; h < 0x10000; h++) {
      const f = halfToFloat(h);
      if (Number.isNaN(f)) continue;
      expect(floatToHalf(f)).toBe(h);
    }
    expect(floatToHalf(65519)).toBe(0x7bff); // rounds down to 65504
    expect(floatToHalf(1e-9)).toBe(0);
  });

  it('refuses values the format cannot hold (80008)', () => {
    const cases: [number, DataFormat][] = [
      [32768, 'int16'],
      [-1, 'uint16'],
      [2 ** 32, 'uint32'],
      [2 ** 31, 'int32'],
      [70000, 'float16'],
      [1e39, 'float32'],
      [NaN, 'double'],
      [Infinity, 'int16'],
    ];
    for (const [v, f] of cases) {
      try {
        encodeValue(v, f);
        expect.unreachable(`${v} as ${f}`);
      } catch (err) {
        expect((err as ModbusError).code).toBe(80008);
      }
    }
    expect(toHex(encodeValue(12.6, 'int16'))).toBe('000d');
  });

  it('checks the data that is there', () => {
    expect(() => decodeValue(hex('0001'), 0, 'int32')).toThrow(ModbusError);
  });
});

describe('formats per register type', () => {
  it('lets coils and discrete inputs hold bool only (80005)', () => {
    for (const type of REGISTER_TYPES) {
      for (const format of DATA_FORMATS) {
        const fits = formatsFor(type).includes(format);
        if (fits) expect(() => checkFormat(type, format)).not.toThrow();
        else expect(() => checkFormat(type, format)).toThrow(expect.objectContaining({ code: 80005 }));
        expect(fits).toBe(format === 'bool' || type === 'holding' || type === 'input');
      }
    }
    expect(() => checkFormat('holding', 'float32', 'AB')).toThrow(expect.objectContaining({ code: 80005 }));
    expect(() => checkFormat('holding', 'int16', 'ABCD')).toThrow(expect.objectContaining({ code: 80005 }));
    expect(() => checkFormat('holding', 'int16', 'BA', 5)).toThrow(expect.objectContaining({ code: 80005 }));
    expect(() => checkFormat('input', 'double', 'DCBA', 4)).not.toThrow();
  });

  it('counts registers per format', () => {
    expect(DATA_FORMATS.map(registerCount)).toEqual([1, 1, 1, 1, 2, 2, 2, 4]);
  });

  it('rounds to 0-4 decimal places', () => {
    expect(roundDecimals(12.34567, 0)).toBe(12);
    expect(roundDecimals(12.34567, 2)).toBe(12.35);
    expect(roundDecimals(12.34567, 4)).toBe(12.3457);
    expect(roundDecimals(12.34567, 9)).toBe(12.3457);
    expect(roundDecimals(true, 2)).toBe(true);
  });
});
