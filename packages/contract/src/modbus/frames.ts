// Modbus RTU frames: request encoders, response encoders (for simulated slaves), and stream parsers that cope
// with split and concatenated packets, as bytes arrive from a DTU in transparent mode. Pure: Uint8Array only.
import { crcOk, withCrc } from './crc';
import { MODBUS_LIMITS } from './types';

export type ReadFunctionCode = 1 | 2 | 3 | 4;
export type WriteFunctionCode = 5 | 6 | 15 | 16;
/** Serial-line diagnostics: meaningful on RS485 behind a DTU, encoded and decoded but never used by templates. */
export type DiagnosticFunctionCode = 7 | 8 | 11 | 12;
export type FunctionCode = ReadFunctionCode | WriteFunctionCode | DiagnosticFunctionCode;

export const FUNCTION_CODES: readonly FunctionCode[] = [1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 15, 16];

export const FUNCTION_NAMES: Record<FunctionCode, string> = {
  1: 'Read Coils',
  2: 'Read Discrete Inputs',
  3: 'Read Holding Registers',
  4: 'Read Input Registers',
  5: 'Write Single Coil',
  6: 'Write Single Register',
  7: 'Read Exception Status',
  8: 'Diagnostics',
  11: 'Get Comm Event Counter',
  12: 'Get Comm Event Log',
  15: 'Write Multiple Coils',
  16: 'Write Multiple Registers',
};

export const isFunctionCode = (fc: number): fc is FunctionCode =>
  (FUNCTION_CODES as readonly number[]).includes(fc);

/** Why a function code of 1-12 that is not supported is refused (9 and 10 are not defined by Modbus). */
export function functionCodeRefusal(fc: number): string | undefined {
  if (isFunctionCode(fc)) return undefined;
  if (fc === 9 || fc === 10) return `function code ${fc} is not defined by the Modbus application protocol`;
  if (fc >= 0x80) return `function code ${fc} is an exception code, not a request`;
  return `function code ${fc} is not supported (supported: ${FUNCTION_CODES.join(', ')})`;
}

/** Exception codes of the Modbus application protocol (and the classic 7 and 8 of the serial line). */
export const EXCEPTION_NAMES: Record<number, { en: string; zh: string }> = {
  1: { en: 'Illegal function', zh: '非法功能码' },
  2: { en: 'Illegal data address', zh: '非法数据地址' },
  3: { en: 'Illegal data value', zh: '非法数据值' },
  4: { en: 'Server device failure', zh: '从站设备故障' },
  5: { en: 'Acknowledge', zh: '已确认（处理中）' },
  6: { en: 'Server device busy', zh: '从站设备忙' },
  7: { en: 'Negative acknowledge', zh: '否定确认' },
  8: { en: 'Memory parity error', zh: '存储奇偶性差错' },
  9: { en: 'Unassigned exception 9', zh: '未定义的异常 9' },
  10: { en: 'Gateway path unavailable', zh: '网关路径不可用' },
  11: { en: 'Gateway target device failed to respond', zh: '网关目标设备响应失败' },
};

export const exceptionName = (code: number, lang: 'en' | 'zh' = 'en'): string =>
  EXCEPTION_NAMES[code]?.[lang] ?? (lang === 'en' ? `Unknown exception ${code}` : `未知异常 ${code}`);

export type ModbusRequest =
  | { fc: ReadFunctionCode; unit: number; address: number; quantity: number }
  | { fc: 5; unit: number; address: number; value: boolean }
  | { fc: 6; unit: number; address: number; value: number }
  | { fc: 15; unit: number; address: number; values: boolean[] }
  | { fc: 16; unit: number; address: number; values: number[] }
  | { fc: 7 | 11 | 12; unit: number }
  | { fc: 8; unit: number; subfunction: number; data: number };

export type ModbusResponse =
  | { fc: 1 | 2; unit: number; bits: boolean[] }
  | { fc: 3 | 4; unit: number; registers: number[]; data: Uint8Array }
  | { fc: 5; unit: number; address: number; value: boolean }
  | { fc: 6; unit: number; address: number; value: number }
  | { fc: 15 | 16; unit: number; address: number; quantity: number }
  | { fc: 7; unit: number; status: number }
  | { fc: 8; unit: number; subfunction: number; data: number }
  | { fc: 11; unit: number; status: number; eventCount: number }
  | { fc: 12; unit: number; status: number; eventCount: number; messageCount: number; events: number[] };

/** A request that breaks the protocol's rules: never encoded, never sent. */
export class ModbusFrameError extends RangeError {
  override name = 'ModbusFrameError';
}

const isInt = (v: number, min: number, max: number) => Number.isInteger(v) && v >= min && v <= max;

function checkUnit(unit: number, broadcastOk: boolean) {
  if (!isInt(unit, broadcastOk ? 0 : 1, 247))
    throw new ModbusFrameError(`slave address ${unit} is outside ${broadcastOk ? 0 : 1}-247`);
}

function checkRange(address: number, quantity: number, max: number) {
  if (!isInt(address, 0, 0xffff)) throw new ModbusFrameError(`address ${address} is outside 0-65535`);
  if (!isInt(quantity, 1, max)) throw new ModbusFrameError(`quantity ${quantity} is outside 1-${max}`);
  if (address + quantity > 0x10000)
    throw new ModbusFrameError(`address ${address} + ${quantity} passes 65535`);
}

const word = (out: number[], v: number) => out.push((v >>> 8) & 0xff, v & 0xff);

function packBits(bits: readonly boolean[]): number[] {
  const bytes = new Array<number>(Math.ceil(bits.length / 8)).fill(0);
  bits.forEach((b, i) => {
    if (b) bytes[i >> 3]! |= 1 << (i & 7);
  });
  return bytes;
}

const unpackBits = (bytes: Uint8Array, offset: number, count: number): boolean[] =>
  Array.from({ length: count }, (_, i) => ((bytes[offset + (i >> 3)]! >> (i & 7)) & 1) === 1);

/** The RTU frame of a request (address, PDU, CRC). Throws ModbusFrameError for anything the protocol forbids. */
export function encodeRequest(req: ModbusRequest): Uint8Array {
  const refusal = functionCodeRefusal(req.fc);
  if (refusal) throw new ModbusFrameError(refusal);
  const writes = req.fc === 5 || req.fc === 6 || req.fc === 15 || req.fc === 16;
  checkUnit(req.unit, writes);
  const out: number[] = [req.unit, req.fc];
  switch (req.fc) {
    case 1:
    case 2:
    case 3:
    case 4:
      checkRange(
        req.address,
        req.quantity,
        req.fc <= 2 ? MODBUS_LIMITS.readBits : MODBUS_LIMITS.readRegisters,
      );
      word(out, req.address);
      word(out, req.quantity);
      break;
    case 5:
      checkRange(req.address, 1, 1);
      word(out, req.address);
      word(out, req.value ? 0xff00 : 0);
      break;
    case 6:
      checkRange(req.address, 1, 1);
      if (!isInt(req.value, 0, 0xffff))
        throw new ModbusFrameError(`register value ${req.value} is outside 0-65535`);
      word(out, req.address);
      word(out, req.value);
      break;
    case 15:
      checkRange(req.address, req.values.length, MODBUS_LIMITS.writeBits);
      word(out, req.address);
      word(out, req.values.length);
      out.push(Math.ceil(req.values.length / 8), ...packBits(req.values));
      break;
    case 16:
      checkRange(req.address, req.values.length, MODBUS_LIMITS.writeRegisters);
      word(out, req.address);
      word(out, req.values.length);
      out.push(req.values.length * 2);
      for (const v of req.values) {
        if (!isInt(v, 0, 0xffff)) throw new ModbusFrameError(`register value ${v} is outside 0-65535`);
        word(out, v);
      }
      break;
    case 8:
      if (!isInt(req.subfunction, 0, 0xffff) || !isInt(req.data, 0, 0xffff))
        throw new ModbusFrameError('diagnostics sub-function and data are 16-bit words');
      word(out, req.subfunction);
      word(out, req.data);
      break;
    case 7:
    case 11:
    case 12:
      break;
  }
  return withCrc(Uint8Array.from(out));
}

/** The RTU frame a slave answers with (used by simulated slaves and by tests). */
export function encodeResponse(res: ModbusResponse): Uint8Array {
  const out: number[] = [res.unit, res.fc];
  switch (res.fc) {
    case 1:
    case 2: {
      const bytes = packBits(res.bits);
      out.push(bytes.length, ...bytes);
      break;
    }
    case 3:
    case 4:
      out.push(res.registers.length * 2);
      for (const v of res.registers) word(out, v);
      break;
    case 5:
      word(out, res.address);
      word(out, res.value ? 0xff00 : 0);
      break;
    case 6:
      word(out, res.address);
      word(out, res.value);
      break;
    case 15:
    case 16:
      word(out, res.address);
      word(out, res.quantity);
      break;
    case 7:
      out.push(res.status & 0xff);
      break;
    case 8:
      word(out, res.subfunction);
      word(out, res.data);
      break;
    case 11:
      word(out, res.status);
      word(out, res.eventCount);
      break;
    case 12:
      out.push(6 + res.events.length);
      word(out, res.status);
      word(out, res.eventCount);
      word(out, res.messageCount);
      out.push(...res.events.map((e) => e & 0xff));
      break;
  }
  return withCrc(Uint8Array.from(out));
}

export function encodeException(unit: number, fc: number, code: number): Uint8Array {
  return withCrc(Uint8Array.from([unit & 0xff, (fc | 0x80) & 0xff, code & 0xff]));
}

/** Length of the response frame starting at `buf[0]`; 0 when more bytes are needed, -1 for an unknown code. */
export function responseFrameLength(buf: Uint8Array): number {
  if (buf.length < 2) return 0;
  const fc = buf[1]!;
  if (fc & 0x80) return 5;
  switch (fc) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 12:
      return buf.length < 3 ? 0 : 5 + buf[2]!;
    case 5:
    case 6:
    case 8:
    case 11:
    case 15:
    case 16:
      return 8;
    case 7:
      return 5;
    default:
      return -1;
  }
}

/** Length of the request frame starting at `buf[0]`; 0 when more bytes are needed, -1 for an unknown code. */
export function requestFrameLength(buf: Uint8Array): number {
  if (buf.length < 2) return 0;
  switch (buf[1]) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 8:
      return 8;
    case 7:
    case 11:
    case 12:
      return 4;
    case 15:
    case 16:
      return buf.length < 7 ? 0 : 9 + buf[6]!;
    default:
      return -1;
  }
}

export type ResponseError = 'crc' | 'address' | 'function' | 'length' | 'mismatch';

export type ReadResult =
  | { kind: 'response'; response: ModbusResponse; frame: Uint8Array }
  | { kind: 'exception'; unit: number; fc: number; code: number; name: string; frame: Uint8Array }
  | { kind: 'error'; error: ResponseError; message: string; frame: Uint8Array };

const u16 = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;

/** Bytes of data a read answers with: ceil(n/8) for bits, 2n for registers. */
export const expectedByteCount = (req: { fc: ReadFunctionCode; quantity: number }): number =>
  req.fc <= 2 ? Math.ceil(req.quantity / 8) : req.quantity * 2;

const fail = (error: ResponseError, message: string, frame: Uint8Array): ReadResult => ({
  kind: 'error',
  error,
  message,
  frame,
});

/**
 * Decodes one complete frame (CRC included) as the answer to `req`, or without a request as whatever it
 * claims to be. Never throws.
 */
export function parseResponse(frame: Uint8Array, req?: ModbusRequest): ReadResult {
  const len = responseFrameLength(frame);
  if (len < 0) return fail('function', `unknown function code ${frame[1]}`, frame);
  if (frame.length < 5) return fail('length', `frame of ${frame.length} bytes is too short`, frame);
  if (!crcOk(frame)) return fail('crc', 'CRC check failed', frame);
  if (frame.length !== len) return fail('length', `frame of ${frame.length} bytes, expected ${len}`, frame);
  const unit = frame[0]!;
  const fc = frame[1]!;
  if (req && unit !== req.unit)
    return fail('address', `answer from slave ${unit}, asked slave ${req.unit}`, frame);
  if (fc & 0x80) {
    if (req && (fc & 0x7f) !== req.fc)
      return fail('function', `exception for function ${fc & 0x7f}, asked ${req.fc}`, frame);
    const code = frame[2]!;
    return { kind: 'exception', unit, fc: fc & 0x7f, code, name: exceptionName(code), frame };
  }
  if (req && fc !== req.fc) return fail('function', `answer to function ${fc}, asked ${req.fc}`, frame);
  switch (fc) {
    case 1:
    case 2: {
      const count = frame[2]!;
      const bits = req && (req.fc === 1 || req.fc === 2) ? req.quantity : count * 8;
      if (req && count !== Math.ceil(bits / 8))
        return fail('length', `byte count ${count}, expected ${Math.ceil(bits / 8)}`, frame);
      return { kind: 'response', response: { fc, unit, bits: unpackBits(frame, 3, bits) }, frame };
    }
    case 3:
    case 4: {
      const count = frame[2]!;
      if (count % 2 !== 0) return fail('length', `odd byte count ${count}`, frame);
      if (req && (req.fc === 3 || req.fc === 4) && count !== req.quantity * 2)
        return fail('length', `byte count ${count}, expected ${req.quantity * 2}`, frame);
      const data = frame.slice(3, 3 + count);
      const registers = Array.from({ length: count / 2 }, (_, i) => u16(data, i * 2));
      return { kind: 'response', response: { fc, unit, registers, data }, frame };
    }
    case 5: {
      const address = u16(frame, 2);
      const raw = u16(frame, 4);
      if (raw !== 0xff00 && raw !== 0) return fail('mismatch', `coil value 0x${raw.toString(16)}`, frame);
      if (req?.fc === 5 && (address !== req.address || (raw === 0xff00) !== req.value))
        return fail('mismatch', 'the echo differs from the request', frame);
      return { kind: 'response', response: { fc, unit, address, value: raw === 0xff00 }, frame };
    }
    case 6: {
      const address = u16(frame, 2);
      const value = u16(frame, 4);
      if (req?.fc === 6 && (address !== req.address || value !== req.value))
        return fail('mismatch', 'the echo differs from the request', frame);
      return { kind: 'response', response: { fc, unit, address, value }, frame };
    }
    case 15:
    case 16: {
      const address = u16(frame, 2);
      const quantity = u16(frame, 4);
      if ((req?.fc === 15 || req?.fc === 16) && (address !== req.address || quantity !== req.values.length))
        return fail('mismatch', 'address or quantity differs from the request', frame);
      return { kind: 'response', response: { fc, unit, address, quantity }, frame };
    }
    case 7:
      return { kind: 'response', response: { fc, unit, status: frame[2]! }, frame };
    case 8: {
      const subfunction = u16(frame, 2);
      const data = u16(frame, 4);
      if (req?.fc === 8 && (subfunction !== req.subfunction || (subfunction === 0 && data !== req.data)))
        return fail('mismatch', 'the echo differs from the request', frame);
      return { kind: 'response', response: { fc, unit, subfunction, data }, frame };
    }
    case 11:
      return {
        kind: 'response',
        response: { fc, unit, status: u16(frame, 2), eventCount: u16(frame, 4) },
        frame,
      };
    default: {
      // 12: byte count, status, event count, message count, events
      const count = frame[2]!;
      if (count < 6) return fail('length', `byte count ${count} is below 6`, frame);
      return {
        kind: 'response',
        response: {
          fc: 12,
          unit,
          status: u16(frame, 3),
          eventCount: u16(frame, 5),
          messageCount: u16(frame, 7),
          events: Array.from(frame.slice(9, 3 + count)),
        },
        frame,
      };
    }
  }
}

/** Longest response frame: 5 + 255 data bytes. More buffered than this without a frame is noise. */
const MAX_FRAME = 260;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b.slice();
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * Collects the bytes of a serial bus as they arrive (split over several packets, or several frames in one) and
 * hands out one result per frame. With `expect(request)` the frame length of a read is the one the request
 * asked for, so a corrupt byte count cannot make the stream wait for bytes that never come.
 */
export class ResponseStream {
  private buf: Uint8Array = new Uint8Array(0);
  private req: ModbusRequest | undefined;

  /** Starts waiting for the answer to `req`; bytes left from an earlier exchange are dropped. */
  expect(req: ModbusRequest | undefined): void {
    this.req = req;
    this.buf = new Uint8Array(0);
  }

  /** Bytes received but not yet part of a frame. */
  get pending(): number {
    return this.buf.length;
  }

  /** Adds bytes and returns every frame they complete (usually none or one). Never throws. */
  push(chunk: Uint8Array): ReadResult[] {
    this.buf = concat(this.buf, chunk);
    const out: ReadResult[] = [];
    for (;;) {
      const r = this.next();
      if (!r) break;
      out.push(r);
    }
    return out;
  }

  private take(n: number): Uint8Array {
    const frame = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return frame;
  }

  private next(): ReadResult | undefined {
    const buf = this.buf;
    if (buf.length < 2) return undefined;
    let len = responseFrameLength(buf);
    if (len < 0) return fail('function', `unknown function code ${buf[1]}`, this.take(buf.length));
    const req = this.req;
    if (req && buf[1] === req.fc && req.fc <= 4 && buf.length >= 3) {
      const expected = 5 + expectedByteCount(req as { fc: ReadFunctionCode; quantity: number });
      if (len !== expected) {
        // A shorter frame that is whole (its CRC holds) is a wrong answer; otherwise count by the request.
        if (len < expected && buf.length >= len && crcOk(buf, len)) return parseResponse(this.take(len), req);
        if (buf.length >= len && len > expected && crcOk(buf, len)) return parseResponse(this.take(len), req);
        len = expected;
      }
    }
    if (len === 0 || buf.length < len) {
      if (buf.length > MAX_FRAME)
        return fail('length', 'no frame in the received bytes', this.take(buf.length));
      return undefined;
    }
    return parseResponse(this.take(len), req);
  }
}

export type RequestResult =
  | { kind: 'request'; request: ModbusRequest; frame: Uint8Array }
  | {
      kind: 'error';
      error: 'crc' | 'function' | 'length';
      message: string;
      frame: Uint8Array;
      unit?: number;
      fc?: number;
    };

/** Decodes one complete request frame (as a slave receives it). Never throws. */
export function parseRequest(frame: Uint8Array): RequestResult {
  const bad = (error: 'crc' | 'function' | 'length', message: string): RequestResult => ({
    kind: 'error',
    error,
    message,
    frame,
    unit: frame[0],
    fc: frame[1],
  });
  const len = requestFrameLength(frame);
  if (len < 0) return bad('function', `unknown function code ${frame[1]}`);
  if (len === 0 || frame.length !== len)
    return bad('length', `frame of ${frame.length} bytes, expected ${len}`);
  if (!crcOk(frame)) return bad('crc', 'CRC check failed');
  const unit = frame[0]!;
  const fc = frame[1]!;
  const a = u16(frame, 2);
  const b = u16(frame, 4);
  let request: ModbusRequest;
  switch (fc) {
    case 1:
    case 2:
    case 3:
    case 4:
      request = { fc, unit, address: a, quantity: b };
      break;
    case 5:
      if (b !== 0xff00 && b !== 0) return bad('length', `coil value 0x${b.toString(16)}`);
      request = { fc, unit, address: a, value: b === 0xff00 };
      break;
    case 6:
      request = { fc, unit, address: a, value: b };
      break;
    case 8:
      request = { fc, unit, subfunction: a, data: b };
      break;
    case 15:
      if (frame[6] !== Math.ceil(b / 8)) return bad('length', `byte count ${frame[6]} for ${b} coils`);
      request = { fc, unit, address: a, values: unpackBits(frame, 7, b) };
      break;
    case 16:
      if (frame[6] !== b * 2) return bad('length', `byte count ${frame[6]} for ${b} registers`);
      request = { fc, unit, address: a, values: Array.from({ length: b }, (_, i) => u16(frame, 7 + i * 2)) };
      break;
    default:
      request = { fc: fc as 7 | 11 | 12, unit };
  }
  return { kind: 'request', request, frame };
}

/** Splits the bytes a slave receives into request frames; keeps a partial frame for the next packet. */
export class RequestStream {
  private buf: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): RequestResult[] {
    this.buf = concat(this.buf, chunk);
    const out: RequestResult[] = [];
    while (this.buf.length >= 2) {
      const len = requestFrameLength(this.buf);
      if (len < 0 || this.buf.length > MAX_FRAME + 10) {
        out.push(parseRequest(this.buf));
        this.buf = new Uint8Array(0);
        break;
      }
      if (len === 0 || this.buf.length < len) break;
      out.push(parseRequest(this.buf.slice(0, len)));
      this.buf = this.buf.slice(len);
    }
    return out;
  }
}
