// Shared Modbus vocabulary of the data templates, the codec, the planner and the polling engine.

export const REGISTER_TYPES = ['coil', 'discrete_input', 'holding', 'input'] as const;
export type RegisterType = (typeof REGISTER_TYPES)[number];

export const DATA_FORMATS = [
  'bool',
  'int16',
  'uint16',
  'float16',
  'int32',
  'uint32',
  'float32',
  'double',
] as const;
export type DataFormat = (typeof DATA_FORMATS)[number];

export const BYTE_ORDERS = ['AB', 'BA', 'ABCD', 'CDAB', 'BADC', 'DCBA'] as const;
export type ByteOrder = (typeof BYTE_ORDERS)[number];

/** Highest number of decimal places a variable keeps. */
export const MAX_DECIMALS = 4;

/** Largest reads and writes of the Modbus application protocol (V1.1b3). */
export const MODBUS_LIMITS = {
  readBits: 2000,
  readRegisters: 125,
  writeBits: 1968,
  writeRegisters: 123,
} as const;

/**
 * A template's register address is the register number 1-65535 (code 80003); the frame carries the protocol
 * address, which is that number minus one (register 1 is address 0x0000).
 */
export const REGISTER_ADDRESS_BASE = 1;
export const toProtocolAddress = (registerAddress: number): number => registerAddress - REGISTER_ADDRESS_BASE;

/** A failure with a code of the error table (80004 formula, 80005 format, 80007 not writable, 80008 range). */
export class ModbusError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ModbusError';
  }
}
