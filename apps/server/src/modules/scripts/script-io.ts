import { PROPERTY_KEY_RULE } from '@cellhub/contract/protocol';
import { isBadText } from '@cellhub/contract/text';
import { type CallResult, ScriptCallError, ScriptError, type ScriptSandbox } from './sandbox';

/**
 * What goes into a script and what is accepted back. `decode(bytes, ctx)` gets the raw uplink as an array of byte
 * values and `ctx` (`hex`, `text`, `sn`, `product_key`, `ts`); it returns `{ properties, events? }` where properties
 * map keys to finite numbers, strings or booleans. `encode(command, ctx)` gets `{ id, type, data }` and returns the
 * bytes to send: an array of byte values or a hex string.
 */

export const PROPERTIES_MAX = 256;
export const STRING_VALUE_MAX = 1024;
export const EVENTS_MAX = 16;
export const ENCODED_BYTES_MAX = 64 * 1024;

export type DecodedValue = number | string | boolean;

export interface DecodeOutput {
  properties: Record<string, DecodedValue>;
  events: { identifier: string; params: Record<string, DecodedValue> }[];
}

export interface DeviceContext {
  sn: string;
  productKey: string;
  ts: number;
}

const outputError = (message: string) => new ScriptError('output', message);

function values(obj: unknown, what: string, keys: 'property' | 'param'): Record<string, DecodedValue> {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw outputError(`${what} must be an object`);
  const out: Record<string, DecodedValue> = {};
  let n = 0;
  for (const [key, v] of Object.entries(obj as Record<string, unknown>)) {
    if (++n > PROPERTIES_MAX) throw outputError(`${what} has more than ${PROPERTIES_MAX} keys`);
    if (
      keys === 'property'
        ? !PROPERTY_KEY_RULE.test(key)
        : key.length === 0 || key.length > 64 || isBadText(key)
    )
      throw outputError(`${what}: invalid key "${key.slice(0, 64)}"`);
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw outputError(`${what}.${key} is not a finite number`);
    } else if (typeof v === 'string') {
      if (v.length > STRING_VALUE_MAX) throw outputError(`${what}.${key} is longer than ${STRING_VALUE_MAX}`);
      if (isBadText(v)) throw outputError(`${what}.${key} contains NUL or broken Unicode`);
    } else if (typeof v !== 'boolean') {
      throw outputError(`${what}.${key} must be a number, string or boolean`);
    }
    out[key] = v as DecodedValue;
  }
  return out;
}

/** Checks what `decode` returned. Throws a ScriptError of kind `output`. */
export function checkDecodeOutput(value: unknown): DecodeOutput {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw outputError('decode() must return an object { properties, events? }');
  const v = value as { properties?: unknown; events?: unknown };
  const properties = values(v.properties ?? {}, 'properties', 'property');
  const events: DecodeOutput['events'] = [];
  if (v.events !== undefined && v.events !== null) {
    if (!Array.isArray(v.events)) throw outputError('events must be a list');
    if (v.events.length > EVENTS_MAX) throw outputError(`at most ${EVENTS_MAX} events`);
    for (const e of v.events as unknown[]) {
      const ev = (e ?? {}) as { identifier?: unknown; params?: unknown };
      if (typeof ev.identifier !== 'string' || !PROPERTY_KEY_RULE.test(ev.identifier))
        throw outputError('an event needs an identifier (letters, digits, _ . -)');
      events.push({ identifier: ev.identifier, params: values(ev.params ?? {}, 'event params', 'param') });
    }
  }
  return { properties, events };
}

/** Checks what `encode` returned: bytes as an array of 0-255 or a hex string. */
export function checkEncodeOutput(value: unknown): Buffer {
  if (typeof value === 'string') {
    const hex = value.replace(/\s+/g, '');
    if (!/^(?:[0-9A-Fa-f]{2})*$/.test(hex)) throw outputError('encode() returned a string that is not hex');
    if (hex.length / 2 > ENCODED_BYTES_MAX) throw outputError(`at most ${ENCODED_BYTES_MAX} bytes`);
    return Buffer.from(hex, 'hex');
  }
  if (Array.isArray(value)) {
    if (value.length > ENCODED_BYTES_MAX) throw outputError(`at most ${ENCODED_BYTES_MAX} bytes`);
    for (const b of value)
      if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255)
        throw outputError('encode() must return bytes (integers 0-255)');
    return Buffer.from(value as number[]);
  }
  throw outputError('encode() must return an array of bytes or a hex string');
}

const ctxOf = (payload: Buffer, device: DeviceContext) => ({
  hex: payload.toString('hex'),
  text: payload.toString('utf8'),
  sn: device.sn,
  product_key: device.productKey,
  ts: device.ts,
});

export interface Decoded extends DecodeOutput {
  logs: string[];
  ms: number;
}

/** Runs `decode` on a raw uplink and checks its output. Throws ScriptCallError. */
export function runDecode(box: ScriptSandbox, payload: Buffer, device: DeviceContext): Decoded {
  const r: CallResult = box.call('decode', [Array.from(payload), ctxOf(payload, device)]);
  try {
    return { ...checkDecodeOutput(r.value), logs: r.logs, ms: r.ms };
  } catch (err) {
    throw new ScriptCallError(err as ScriptError, r.logs, r.ms);
  }
}

export interface Encoded {
  bytes: Buffer;
  logs: string[];
  ms: number;
}

/** Runs `encode` on a command and checks its output. Throws ScriptCallError. */
export function runEncode(
  box: ScriptSandbox,
  command: { id: string; type: string; data: string },
  device: DeviceContext,
): Encoded {
  const r = box.call('encode', [command, { sn: device.sn, product_key: device.productKey, ts: device.ts }]);
  try {
    return { bytes: checkEncodeOutput(r.value), logs: r.logs, ms: r.ms };
  } catch (err) {
    throw new ScriptCallError(err as ScriptError, r.logs, r.ms);
  }
}
