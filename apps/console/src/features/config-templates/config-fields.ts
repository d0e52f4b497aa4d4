/**
 * The fields a template can set, one per leaf of the device configuration (PROTOCOL.md "Configuration"), and the
 * conversions between a template's configuration and the form's flat "field on / value" state.
 */
import type { CONFIG_GROUPS } from '@cellhub/contract/config-templates';
import type { DeviceConfig } from '@cellhub/contract/device-config';
import { MQTT_TOPIC_SLOTS, SOCKET_SLOTS } from '@cellhub/contract/device-config';

export type ConfigGroup = (typeof CONFIG_GROUPS)[number];
export type FieldKind = 'text' | 'password' | 'number' | 'bool' | 'select';
export type FieldValue = string | number | boolean;

export interface FieldDef {
  /** Dotted path, array slots as numbers: `socket.1.server`. */
  key: string;
  path: (string | number)[];
  group: ConfigGroup;
  /** Sub-section inside the group (`apn`, `subscribe.3`, `rs485`, `socket.2.heartbeat`): one heading each. */
  section: string;
  /** Last name of the path; the locale has one text per name. */
  name: string;
  kind: FieldKind;
  options?: FieldValue[];
  min?: number;
  max?: number;
}

const PORT = { min: 1, max: 65535 };
const SERIAL: [string, FieldKind, FieldValue[]?][] = [
  ['baud', 'select', [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]],
  ['data_bits', 'select', [5, 6, 7, 8]],
  ['stop_bits', 'select', [1, 1.5, 2]],
  ['parity', 'select', ['none', 'odd', 'even', 'mark', 'space']],
  ['flow_control', 'select', ['none', 'rtscts', 'xonxoff']],
];

function field(
  group: ConfigGroup,
  section: string,
  path: (string | number)[],
  kind: FieldKind,
  extra: Partial<FieldDef> = {},
): FieldDef {
  return { key: path.join('.'), path, group, section, name: String(path.at(-1)), kind, ...extra };
}

function build(): FieldDef[] {
  const out: FieldDef[] = [];
  for (const n of ['name', 'username', 'password', 'auth'])
    out.push(field('global', 'apn', ['global', 'apn', n], n === 'password' ? 'password' : 'text'));
  out.push(field('global', 'ntp', ['global', 'ntp', 'enable'], 'bool'));
  out.push(field('global', 'ntp', ['global', 'ntp', 'server'], 'text'));
  out.push(field('global', 'ntp', ['global', 'ntp', 'interval'], 'number', { min: 0, max: 604_800 }));

  out.push(field('mqtt', 'broker', ['mqtt', 'server'], 'text'));
  out.push(field('mqtt', 'broker', ['mqtt', 'port'], 'number', PORT));
  out.push(field('mqtt', 'broker', ['mqtt', 'client_id'], 'text'));
  out.push(field('mqtt', 'broker', ['mqtt', 'username'], 'text'));
  out.push(field('mqtt', 'broker', ['mqtt', 'password'], 'password'));
  out.push(field('mqtt', 'broker', ['mqtt', 'keepalive'], 'number', { min: 0, max: 65535 }));
  out.push(field('mqtt', 'will', ['mqtt', 'will', 'topic'], 'text'));
  out.push(field('mqtt', 'will', ['mqtt', 'will', 'qos'], 'select', { options: [0, 1, 2] }));
  out.push(field('mqtt', 'will', ['mqtt', 'will', 'payload'], 'text'));
  out.push(field('mqtt', 'will', ['mqtt', 'will', 'retain'], 'bool'));
  for (const dir of ['subscribe', 'publish'])
    for (let i = 0; i < MQTT_TOPIC_SLOTS; i++) {
      out.push(field('mqtt', `${dir}.${i}`, ['mqtt', dir, i, 'topic'], 'text'));
      out.push(field('mqtt', `${dir}.${i}`, ['mqtt', dir, i, 'qos'], 'select', { options: [0, 1, 2] }));
    }

  for (const port of ['rs232', 'rs485'])
    for (const [n, kind, options] of SERIAL)
      out.push(field('serial', port, ['serial', port, n], kind, options ? { options } : {}));

  for (let i = 0; i < SOCKET_SLOTS; i++) {
    const s = `socket.${i}`;
    out.push(field('socket', s, ['socket', i, 'enable'], 'bool'));
    out.push(field('socket', s, ['socket', i, 'protocol'], 'select', { options: ['tcp', 'udp'] }));
    out.push(field('socket', s, ['socket', i, 'server'], 'text'));
    out.push(field('socket', s, ['socket', i, 'port'], 'number', PORT));
    out.push(field('socket', s, ['socket', i, 'backup_server'], 'text'));
    out.push(field('socket', s, ['socket', i, 'backup_port'], 'number', PORT));
    out.push(field('socket', `${s}.heartbeat`, ['socket', i, 'heartbeat', 'enable'], 'bool'));
    out.push(
      field('socket', `${s}.heartbeat`, ['socket', i, 'heartbeat', 'interval'], 'number', {
        min: 0,
        max: 86_400,
      }),
    );
    out.push(field('socket', `${s}.heartbeat`, ['socket', i, 'heartbeat', 'data'], 'text'));
    out.push(field('socket', `${s}.registration`, ['socket', i, 'registration', 'enable'], 'bool'));
    out.push(field('socket', `${s}.registration`, ['socket', i, 'registration', 'data'], 'text'));
  }

  out.push(
    field('aliyun', 'aliyun', ['aliyun', 'mode'], 'select', { options: ['off', 'direct', 'transparent'] }),
  );
  for (const n of ['product_key', 'device_name', 'device_secret', 'region'])
    out.push(field('aliyun', 'aliyun', ['aliyun', n], n === 'device_secret' ? 'password' : 'text'));
  return out;
}

export const CONFIG_FIELDS: FieldDef[] = build();

/** Form state: the fields the template sets, with their values. */
export type FieldState = Record<string, FieldValue>;

export const defaultValue = (f: FieldDef): FieldValue =>
  f.kind === 'bool' ? false : f.kind === 'number' ? (f.min ?? 0) : f.kind === 'select' ? f.options![0]! : '';

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null;

function getAt(obj: Json, path: (string | number)[]): Json {
  let cur = obj;
  for (const p of path) {
    if (!isObject(cur)) return undefined;
    cur = (cur as Record<string | number, Json>)[p];
  }
  return cur;
}

/** The fields a saved template sets. */
export function fromConfig(config: DeviceConfig): FieldState {
  const state: FieldState = {};
  for (const f of CONFIG_FIELDS) {
    const v = getAt(config, f.path);
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') state[f.key] = v;
  }
  return state;
}

/** Drops empty objects, and arrays holding nothing but empty slots. */
function prune(v: Json): Json {
  if (Array.isArray(v)) {
    // Array.from visits holes (map skips them): a skipped slot must become {}, never null in JSON.
    const items = Array.from(v as Json[], (x) => (x === undefined ? {} : (prune(x) ?? {})));
    return items.every((x) => isObject(x) && Object.keys(x).length === 0) ? undefined : items;
  }
  if (isObject(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x);
      if (p !== undefined && !(isObject(p) && !Array.isArray(p) && Object.keys(p).length === 0)) out[k] = p;
    }
    return out;
  }
  return v;
}

/**
 * The template configuration for the chosen fields. `base` is the template as saved: whatever it sets outside
 * the form's fields (say global.advanced, written through the API) is kept. Skipped array slots become `{}`, which
 * leaves the device's slot as it is when the template is applied.
 */
export function toConfig(state: FieldState, base: DeviceConfig = {}): DeviceConfig {
  const out = structuredClone(base) as Record<string, Json>;
  for (const f of CONFIG_FIELDS) {
    const parent = getAt(out, f.path.slice(0, -1));
    if (isObject(parent)) delete (parent as Record<string | number, Json>)[f.path.at(-1)!];
  }
  for (const f of CONFIG_FIELDS) {
    if (!(f.key in state)) continue;
    let cur = out as Record<string | number, Json>;
    f.path.forEach((p, i) => {
      if (i === f.path.length - 1) {
        cur[p] = state[f.key];
        return;
      }
      if (!isObject(cur[p])) cur[p] = typeof f.path[i + 1] === 'number' ? [] : {};
      cur = cur[p] as Record<string | number, Json>;
    });
  }
  return (prune(out) ?? {}) as DeviceConfig;
}
