// Read planning: the variables of one slave and register type that sit next to each other are read in one
// request, within the protocol's limits. Write planning: the function code a value needs.
import {
  bytesToRegisters,
  decodeValue,
  encodeValue,
  isBitType,
  isWritableType,
  REGISTER_COUNT,
} from './codec';
import type { ModbusRequest, ModbusResponse, ReadFunctionCode } from './frames';
import { type ByteOrder, type DataFormat, MODBUS_LIMITS, ModbusError, type RegisterType } from './types';

export interface PlanVariable {
  /** The variable's tag (the property key). */
  key: string;
  /** Slave address 1-247. */
  unit: number;
  type: RegisterType;
  /** Protocol address 0-65535 (a template's register number minus one). */
  address: number;
  format: DataFormat;
  order?: ByteOrder;
}

export interface PlanOptions {
  /**
   * Unused registers (or bits) allowed between two variables read in one request. Default 0: only adjacent
   * variables share a request, because many slaves answer exception 2 for a gap they do not implement.
   */
  maxGap?: number;
  /** At most this many registers per read (1-125, default 125). */
  maxRegisters?: number;
  /** At most this many coils or discrete inputs per read (1-2000, default 2000). */
  maxBits?: number;
}

export interface ReadBlock {
  request: { fc: ReadFunctionCode; unit: number; address: number; quantity: number };
  type: RegisterType;
  /** `offset` and `count` in registers (bits for coils and discrete inputs) from the block's first address. */
  variables: (PlanVariable & { offset: number; count: number })[];
}

export const READ_FUNCTION: Record<RegisterType, ReadFunctionCode> = {
  coil: 1,
  discrete_input: 2,
  holding: 3,
  input: 4,
};

export const widthOf = (v: Pick<PlanVariable, 'type' | 'format'>): number =>
  isBitType(v.type) ? 1 : REGISTER_COUNT[v.format];

const clamp = (n: number | undefined, min: number, max: number, dflt: number) =>
  n === undefined || !Number.isFinite(n) ? dflt : Math.max(min, Math.min(max, Math.trunc(n)));

/** Groups variables into read requests; the result is ordered by slave, register type and address. */
export function planReads(variables: readonly PlanVariable[], opts: PlanOptions = {}): ReadBlock[] {
  const maxGap = clamp(opts.maxGap, 0, MODBUS_LIMITS.readBits, 0);
  const maxRegs = clamp(opts.maxRegisters, 1, MODBUS_LIMITS.readRegisters, MODBUS_LIMITS.readRegisters);
  const maxBits = clamp(opts.maxBits, 1, MODBUS_LIMITS.readBits, MODBUS_LIMITS.readBits);
  const typeRank = (t: RegisterType) => READ_FUNCTION[t];
  const sorted = [...variables].sort(
    (a, b) => a.unit - b.unit || typeRank(a.type) - typeRank(b.type) || a.address - b.address,
  );
  const blocks: ReadBlock[] = [];
  let cur: ReadBlock | undefined;
  let end = 0; // one past the last address of the current block
  for (const v of sorted) {
    const width = widthOf(v);
    if (v.address < 0 || v.address + width > 0x10000) continue; // cannot be addressed; templates refuse it (80003)
    const limit = isBitType(v.type) ? maxBits : maxRegs;
    const fits =
      cur !== undefined &&
      cur.request.unit === v.unit &&
      cur.type === v.type &&
      v.address - end <= maxGap &&
      Math.max(end, v.address + width) - cur.request.address <= limit;
    if (!fits || !cur) {
      cur = {
        request: { fc: READ_FUNCTION[v.type], unit: v.unit, address: v.address, quantity: width },
        type: v.type,
        variables: [],
      };
      blocks.push(cur);
      end = v.address + width;
    } else {
      end = Math.max(end, v.address + width);
      cur.request.quantity = end - cur.request.address;
    }
    cur.variables.push({ ...v, offset: v.address - cur.request.address, count: width });
  }
  return blocks;
}

export type BlockValue = { key: string; value: number | boolean } | { key: string; error: string };

/** The raw values (before formula and decimals) of a block's variables from the answer to its request. */
export function readBlockValues(block: ReadBlock, response: ModbusResponse): BlockValue[] {
  return block.variables.map((v) => {
    try {
      if (response.fc === 1 || response.fc === 2) {
        const bit = response.bits[v.offset];
        if (bit === undefined) return { key: v.key, error: 'the answer holds too few bits' };
        return { key: v.key, value: bit };
      }
      if (response.fc === 3 || response.fc === 4) {
        return { key: v.key, value: decodeValue(response.data, v.offset * 2, v.format, v.order) };
      }
      return { key: v.key, error: `function ${response.fc} does not answer a read` };
    } catch (err) {
      return { key: v.key, error: err instanceof Error ? err.message : String(err) };
    }
  });
}

export interface WriteOptions {
  /** Use FC 15/16 even for one coil or register (for slaves that implement only the multiple-write codes). */
  preferMultiple?: boolean;
}

/**
 * The write request for a value: coils take FC 5 (15 with preferMultiple), holding registers FC 6 for one
 * register and FC 16 for wider formats. Discrete inputs and input registers are read-only (80007); a value the
 * format cannot hold throws 80008.
 */
export function planWrite(
  v: Omit<PlanVariable, 'key'>,
  value: number | boolean,
  opts: WriteOptions = {},
): ModbusRequest {
  if (!isWritableType(v.type)) throw new ModbusError(80007, `a ${v.type.replace('_', ' ')} is read-only`);
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new ModbusError(80008, `${value} is not a finite number`);
  if (v.type === 'coil') {
    const on = typeof value === 'boolean' ? value : value !== 0;
    return opts.preferMultiple
      ? { fc: 15, unit: v.unit, address: v.address, values: [on] }
      : { fc: 5, unit: v.unit, address: v.address, value: on };
  }
  const registers = bytesToRegisters(encodeValue(value, v.format, v.order));
  if (registers.length === 1 && !opts.preferMultiple)
    return { fc: 6, unit: v.unit, address: v.address, value: registers[0]! };
  return { fc: 16, unit: v.unit, address: v.address, values: registers };
}
