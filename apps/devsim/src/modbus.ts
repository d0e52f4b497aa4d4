// Modbus RTU slaves behind a simulated DTU in transparent mode: request frames arrive on `P/down/raw`, answers
// leave on `P/up/raw`. Registers can drift over time, answers can be slow, wrong (exceptions, a broken CRC) or
// missing, so the platform's polling engine can be tested against every failure a real RS485 bus shows.
import {
  type ByteOrder,
  bytesToRegisters,
  type DataFormat,
  encodeException,
  encodeResponse,
  encodeValue,
  type ModbusRequest,
  type ModbusResponse,
  type RegisterType,
  RequestStream,
} from '@cellhub/contract/modbus';

/** A value that moves between `min` and `max` over `periodMs` (a sine; coils flip every half period). */
export interface Drift {
  type: RegisterType;
  /** Protocol address (register number minus one). */
  address: number;
  format?: DataFormat;
  order?: ByteOrder;
  min: number;
  max: number;
  /** Default 60 s. */
  periodMs?: number;
}

export interface SlaveOptions {
  /** Slave address 1-247. */
  address: number;
  /** Protocol address -> value. Addresses not listed answer exception 2 (illegal data address). */
  coils?: Record<number, boolean>;
  discreteInputs?: Record<number, boolean>;
  holdingRegisters?: Record<number, number>;
  inputRegisters?: Record<number, number>;
  drift?: Drift[];
  /** Milliseconds before every answer (a slow meter). */
  delayMs?: number;
  /** Answer every request with this exception code (1-11). */
  exception?: number;
  /** Flip a bit of every answer's CRC. */
  corruptCrc?: boolean;
  /** Do not answer at all (a slave that is off or wired wrong). */
  silent?: boolean;
}

type Space = Map<number, number>;

/** One simulated slave: four address spaces, drift, and failure switches that tests flip at run time. */
export class ModbusSlave {
  readonly address: number;
  readonly coils: Space = new Map();
  readonly discreteInputs: Space = new Map();
  readonly holdingRegisters: Space = new Map();
  readonly inputRegisters: Space = new Map();
  drift: Drift[];
  delayMs: number;
  exception: number | undefined;
  corruptCrc: boolean;
  silent: boolean;
  /** Exceptions to answer for the next requests only (consumed first). */
  readonly queuedExceptions: number[] = [];
  /** Every request it received (answered or not). */
  readonly requests: ModbusRequest[] = [];
  private readonly started = Date.now();

  constructor(opts: SlaveOptions) {
    this.address = opts.address;
    const fill = (space: Space, values: Record<number, number | boolean> | undefined) => {
      for (const [k, v] of Object.entries(values ?? {})) space.set(Number(k), Number(v) & 0xffff);
    };
    fill(this.coils, opts.coils);
    fill(this.discreteInputs, opts.discreteInputs);
    fill(this.holdingRegisters, opts.holdingRegisters);
    fill(this.inputRegisters, opts.inputRegisters);
    this.drift = opts.drift ?? [];
    this.delayMs = opts.delayMs ?? 0;
    this.exception = opts.exception;
    this.corruptCrc = opts.corruptCrc ?? false;
    this.silent = opts.silent ?? false;
    for (const d of this.drift) this.applyDrift(d, this.started);
  }

  space(type: RegisterType): Space {
    switch (type) {
      case 'coil':
        return this.coils;
      case 'discrete_input':
        return this.discreteInputs;
      case 'holding':
        return this.holdingRegisters;
      case 'input':
        return this.inputRegisters;
    }
  }

  /** Writes a typed value into registers (or one bit), as the slave's own sensor would. */
  set(
    type: RegisterType,
    address: number,
    value: number | boolean,
    format: DataFormat = 'uint16',
    order?: ByteOrder,
  ) {
    const space = this.space(type);
    if (type === 'coil' || type === 'discrete_input') {
      space.set(address, value === true || (typeof value === 'number' && value !== 0) ? 1 : 0);
      return;
    }
    bytesToRegisters(encodeValue(value, format, order)).forEach((w, i) => space.set(address + i, w));
  }

  /** The registers from `address` on (undefined where nothing is mapped). */
  words(type: RegisterType, address: number, count: number): (number | undefined)[] {
    const space = this.space(type);
    return Array.from({ length: count }, (_, i) => space.get(address + i));
  }

  private applyDrift(d: Drift, now: number): void {
    const period = d.periodMs ?? 60_000;
    const phase = ((now - this.started) % period) / period;
    if (d.type === 'coil' || d.type === 'discrete_input') {
      this.set(d.type, d.address, phase >= 0.5);
      return;
    }
    const mid = (d.min + d.max) / 2;
    const amp = (d.max - d.min) / 2;
    let v = mid + amp * Math.sin(2 * Math.PI * phase);
    const format = d.format ?? 'uint16';
    if (format !== 'float16' && format !== 'float32' && format !== 'double') v = Math.round(v);
    this.set(d.type, d.address, v, format, d.order);
  }

  /** The answer frame to a request addressed to this slave; undefined when it stays silent. */
  answer(req: ModbusRequest): Uint8Array | undefined {
    this.requests.push(req);
    const now = Date.now();
    for (const d of this.drift) this.applyDrift(d, now);
    if (this.silent) return undefined;
    const queued = this.queuedExceptions.shift();
    const code = queued ?? this.exception;
    let frame = code !== undefined ? encodeException(req.unit, req.fc, code) : this.execute(req);
    if (req.unit === 0) return undefined; // broadcast: executed, never answered
    if (this.corruptCrc) {
      frame = frame.slice();
      frame[frame.length - 1] = frame[frame.length - 1]! ^ 0x01;
    }
    return frame;
  }

  private execute(req: ModbusRequest): Uint8Array {
    const ex = (code: number) => encodeException(req.unit, req.fc, code);
    const read = (space: Space, address: number, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const v = space.get(address + i);
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    };
    let res: ModbusResponse;
    switch (req.fc) {
      case 1:
      case 2: {
        const bits = read(req.fc === 1 ? this.coils : this.discreteInputs, req.address, req.quantity);
        if (!bits) return ex(2);
        res = { fc: req.fc, unit: this.address, bits: bits.map((b) => b !== 0) };
        break;
      }
      case 3:
      case 4: {
        const regs = read(
          req.fc === 3 ? this.holdingRegisters : this.inputRegisters,
          req.address,
          req.quantity,
        );
        if (!regs) return ex(2);
        res = { fc: req.fc, unit: this.address, registers: regs, data: new Uint8Array() };
        break;
      }
      case 5:
        if (!this.coils.has(req.address)) return ex(2);
        this.coils.set(req.address, req.value ? 1 : 0);
        res = { fc: 5, unit: this.address, address: req.address, value: req.value };
        break;
      case 6:
        if (!this.holdingRegisters.has(req.address)) return ex(2);
        this.holdingRegisters.set(req.address, req.value);
        res = { fc: 6, unit: this.address, address: req.address, value: req.value };
        break;
      case 15:
        if (!read(this.coils, req.address, req.values.length)) return ex(2);
        req.values.forEach((b, i) => this.coils.set(req.address + i, b ? 1 : 0));
        res = { fc: 15, unit: this.address, address: req.address, quantity: req.values.length };
        break;
      case 16:
        if (!read(this.holdingRegisters, req.address, req.values.length)) return ex(2);
        req.values.forEach((w, i) => this.holdingRegisters.set(req.address + i, w));
        res = { fc: 16, unit: this.address, address: req.address, quantity: req.values.length };
        break;
      case 8:
        if (req.subfunction !== 0) return ex(1);
        res = { fc: 8, unit: this.address, subfunction: 0, data: req.data };
        break;
      case 11:
        res = { fc: 11, unit: this.address, status: 0, eventCount: this.requests.length & 0xffff };
        break;
      default:
        return ex(1);
    }
    return encodeResponse(res);
  }
}

export interface BusStats {
  requests: number;
  answers: number;
  /** Frames that were not whole requests (bad CRC, unknown function): a real slave ignores them. */
  garbage: number;
}

/** The RS485 bus behind one DTU: splits what arrives into request frames and lets the addressed slave answer. */
export class ModbusBus {
  readonly slaves = new Map<number, ModbusSlave>();
  readonly stats: BusStats = { requests: 0, answers: 0, garbage: 0 };
  private readonly stream = new RequestStream();
  /** Serialises answers: a half-duplex bus answers one request after the other. */
  private queue: Promise<void> = Promise.resolve();

  constructor(slaves: (ModbusSlave | SlaveOptions)[] = []) {
    for (const s of slaves) this.add(s);
  }

  add(slave: ModbusSlave | SlaveOptions): ModbusSlave {
    const s = slave instanceof ModbusSlave ? slave : new ModbusSlave(slave);
    this.slaves.set(s.address, s);
    return s;
  }

  slave(address: number): ModbusSlave | undefined {
    return this.slaves.get(address);
  }

  /**
   * Takes bytes written to the serial port and calls `send` with each answer, after the slave's delay, in order.
   * Returns when every answer these bytes caused has been handed to `send`.
   */
  receive(bytes: Uint8Array, send: (frame: Uint8Array) => Promise<void>): Promise<void> {
    for (const r of this.stream.push(bytes)) {
      if (r.kind === 'error') {
        this.stats.garbage++;
        continue;
      }
      this.stats.requests++;
      const targets = r.request.unit === 0 ? [...this.slaves.values()] : [this.slaves.get(r.request.unit)];
      for (const slave of targets) {
        if (!slave) continue; // nobody at that address: the bus stays quiet and the master times out
        const request = r.request;
        this.queue = this.queue.then(async () => {
          const delay = slave.delayMs;
          const frame = slave.answer(request);
          if (!frame) return;
          if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
          this.stats.answers++;
          await send(frame).catch(() => undefined);
        });
      }
    }
    return this.queue;
  }
}

/**
 * The meter `--modbus` puts behind every simulated DTU (slave 1), and that `npm run demo`'s data template describes
 * (register numbers are protocol address + 1):
 *
 * | register | type | format | what |
 * | --- | --- | --- | --- |
 * | 1 | holding | int16 | temperature x 10, drifting 15.0-30.0 °C (capture formula `x*0.1`) |
 * | 2-3 | holding | float32 ABCD | voltage, drifting 215-235 V |
 * | 4-5 | input | uint32 CDAB | energy counter in Wh, drifting 10 000-90 000 |
 * | 11 | holding | uint16 | setpoint, writable, starts at 50 |
 * | coil 1 | coil | bool | relay, writable, starts off |
 * | discrete input 1 | discrete input | bool | door contact, flipping every minute |
 */
export function demoMeter(address = 1): SlaveOptions {
  return {
    address,
    holdingRegisters: { 10: 50 },
    coils: { 0: false },
    drift: [
      { type: 'holding', address: 0, format: 'int16', min: 150, max: 300, periodMs: 120_000 },
      { type: 'holding', address: 1, format: 'float32', order: 'ABCD', min: 215, max: 235, periodMs: 90_000 },
      {
        type: 'input',
        address: 3,
        format: 'uint32',
        order: 'CDAB',
        min: 10_000,
        max: 90_000,
        periodMs: 600_000,
      },
      { type: 'discrete_input', address: 0, min: 0, max: 1, periodMs: 120_000 },
    ],
  };
}
