import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { registerCount } from './codec';
import { encodeResponse, encodeRequest } from './frames';
import { planReads, planWrite, type PlanVariable, readBlockValues } from './planner';
import { DATA_FORMATS, MODBUS_LIMITS, ModbusError } from './types';
import { toHex } from './crc';

const v = (key: string, address: number, over: Partial<PlanVariable> = {}): PlanVariable => ({
  key,
  unit: 1,
  type: 'holding',
  address,
  format: 'uint16',
  ...over,
});

describe('read planner', () => {
  it('merges adjacent variables of one slave and register type', () => {
    const blocks = planReads([
      v('a', 0),
      v('b', 1, { format: 'float32' }),
      v('c', 3),
      v('d', 10),
      v('e', 0, { unit: 2 }),
      v('f', 0, { type: 'input' }),
      v('g', 5, { type: 'coil', format: 'bool' }),
      v('h', 6, { type: 'coil', format: 'bool' }),
    ]);
    expect(blocks.map((b) => [b.request.unit, b.request.fc, b.request.address, b.request.quantity])).toEqual([
      [1, 1, 5, 2],
      [1, 3, 0, 4],
      [1, 3, 10, 1],
      [1, 4, 0, 1],
      [2, 3, 0, 1],
    ]);
    expect(blocks[1]!.variables.map((x) => [x.key, x.offset, x.count])).toEqual([
      ['a', 0, 1],
      ['b', 1, 2],
      ['c', 3, 1],
    ]);
  });

  it('bridges gaps up to maxGap', () => {
    const vars = [v('a', 0), v('b', 4), v('c', 20)];
    expect(planReads(vars, { maxGap: 3 }).map((b) => b.request.quantity)).toEqual([5, 1]);
    expect(planReads(vars, { maxGap: 2 }).length).toBe(3);
    expect(planReads(vars, { maxGap: 15 }).map((b) => b.request.quantity)).toEqual([21]);
  });

  it('keeps every request within the protocol limits and covers every variable', () => {
    const varArb = fc.record({
      key: fc.string(),
      unit: fc.integer({ min: 1, max: 3 }),
      type: fc.constantFrom('coil' as const, 'discrete_input' as const, 'holding' as const, 'input' as const),
      address: fc.integer({ min: 0, max: 3000 }),
      format: fc.constantFrom(...DATA_FORMATS),
    });
    fc.assert(
      fc.property(fc.array(varArb, { maxLength: 300 }), fc.nat(200), (raw, gap) => {
        const vars = raw.map((x) =>
          x.type === 'coil' || x.type === 'discrete_input' ? { ...x, format: 'bool' as const } : x,
        );
        const blocks = planReads(vars, { maxGap: gap });
        let covered = 0;
        for (const b of blocks) {
          const bits = b.request.fc <= 2;
          expect(b.request.quantity).toBeLessThanOrEqual(
            bits ? MODBUS_LIMITS.readBits : MODBUS_LIMITS.readRegisters,
          );
          expect(() => encodeRequest(b.request)).not.toThrow();
          for (const x of b.variables) {
            covered++;
            expect(x.unit).toBe(b.request.unit);
            expect(x.offset + x.count).toBeLessThanOrEqual(b.request.quantity);
            expect(x.count).toBe(bits ? 1 : registerCount(x.format));
          }
        }
        expect(covered).toBe(vars.length);
      }),
      { numRuns: 200 },
    );
  });

  it('reads the variables out of the answer', () => {
    const [block] = planReads([
      v('t', 0, { format: 'int16' }),
      v('p', 1, { format: 'float32', order: 'CDAB' }),
    ]);
    const frame = encodeResponse({
      fc: 3,
      unit: 1,
      registers: [0xfff6, 0x0000, 0x4148],
      data: new Uint8Array(),
    });
    const registers = [0xfff6, 0x0000, 0x4148];
    const data = new Uint8Array(registers.flatMap((r) => [r >> 8, r & 0xff]));
    expect(toHex(frame.slice(3, -2))).toBe(toHex(data));
    expect(readBlockValues(block!, { fc: 3, unit: 1, registers, data })).toEqual([
      { key: 't', value: -10 },
      { key: 'p', value: 12.5 },
    ]);
  });
});

describe('write planner', () => {
  it('picks FC 5, 6, 15 or 16 from register type and width', () => {
    expect(planWrite(v('c', 3, { type: 'coil', format: 'bool' }), 1)).toEqual({
      fc: 5,
      unit: 1,
      address: 3,
      value: true,
    });
    expect(planWrite(v('c', 3, { type: 'coil', format: 'bool' }), false, { preferMultiple: true })).toEqual({
      fc: 15,
      unit: 1,
      address: 3,
      values: [false],
    });
    expect(planWrite(v('r', 7, { format: 'int16' }), -1)).toEqual({
      fc: 6,
      unit: 1,
      address: 7,
      value: 0xffff,
    });
    expect(planWrite(v('r', 7), 5, { preferMultiple: true })).toEqual({
      fc: 16,
      unit: 1,
      address: 7,
      values: [5],
    });
    expect(planWrite(v('r', 7, { format: 'float32', order: 'CDAB' }), 12.5)).toEqual({
      fc: 16,
      unit: 1,
      address: 7,
      values: [0x0000, 0x4148],
    });
  });

  it('refuses read-only register types (80007) and values out of range (80008)', () => {
    for (const type of ['discrete_input', 'input'] as const) {
      expect(() => planWrite(v('x', 0, { type }), 1)).toThrow(expect.objectContaining({ code: 80007 }));
    }
    expect(() => planWrite(v('x', 0), 70000)).toThrow(ModbusError);
    expect(() => planWrite(v('x', 0), NaN)).toThrow(expect.objectContaining({ code: 80008 }));
  });
});
