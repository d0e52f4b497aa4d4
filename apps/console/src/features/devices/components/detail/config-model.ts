/**
 * The configuration editor's model: contract config <-> form values, and validation with the contract's own schema
 * (the server checks the same schema, so what the form accepts the server accepts).
 */
import {
  type DeviceConfig,
  deviceConfig,
  MQTT_TOPIC_SLOTS,
  SOCKET_SLOTS,
} from '@cellhub/contract/device-config';

type Obj = Record<string, unknown>;

/** What the form edits: the config with fixed slot counts, plus the advanced group as JSON text. */
export type ConfigFormValues = Obj & { _advanced?: string };

/** A validation message as a locale key and its values, so the form shows it in the active language. */
export interface ConfigIssue {
  key: string;
  vars?: Record<string, string | number>;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

function padSlots(list: unknown, slots: number): Obj[] {
  const out = Array.isArray(list) ? list.map((x) => (isObj(x) ? x : {})) : [];
  while (out.length < slots) out.push({});
  return out;
}

/** The config as the form shows it: 8 subscribe and 8 publish topics, 4 sockets, advanced as JSON text. */
export function toFormValues(config: DeviceConfig | undefined): ConfigFormValues {
  const v = clone((config ?? {}) as Obj);
  const mqtt = isObj(v.mqtt) ? v.mqtt : {};
  mqtt.subscribe = padSlots(mqtt.subscribe, MQTT_TOPIC_SLOTS);
  mqtt.publish = padSlots(mqtt.publish, MQTT_TOPIC_SLOTS);
  v.mqtt = mqtt;
  v.socket = padSlots(v.socket, SOCKET_SLOTS);
  const global = isObj(v.global) ? v.global : {};
  const advanced = global.advanced;
  delete global.advanced;
  v.global = global;
  v._advanced = advanced === undefined ? '' : JSON.stringify(advanced, null, 2);
  return v;
}

/** A value that means "not set": cleared inputs answer undefined (numbers) or '' (text the user never typed). */
const unset = (v: unknown) => v === undefined || v === null;

/** Whether a slot carries anything; an untouched slot is `{}` or holds only unset values. */
function slotUsed(slot: unknown): boolean {
  if (!isObj(slot)) return false;
  return Object.values(slot).some((v) => (isObj(v) ? slotUsed(v) : !unset(v) && v !== ''));
}

/** Empty slots at the end are not sent: a device with 2 topics gets 2, not 2 and 6 placeholders; none: no list. */
function trimSlots(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  const out = [...list];
  while (out.length && !slotUsed(out[out.length - 1])) out.pop();
  return out.length ? Array.from(out, (x) => (isObj(x) ? x : {})) : undefined;
}

/** Drops objects left empty by cleared fields; slots inside lists stay, their position means something. */
function prune(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (isObj(x) ? (prune(x) ?? {}) : x));
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    const p = prune(x);
    if (p !== undefined) out[k] = p;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * Lays `edited` over `base`: fields the form edits take the form's value (unset removes them), fields it does not
 * know (firmware extras) keep the base's value. Arrays merge slot by slot.
 */
export function mergeConfig(base: unknown, edited: unknown): unknown {
  if (Array.isArray(edited)) {
    const b = Array.isArray(base) ? base : [];
    return edited.map((e, i) => mergeConfig(b[i], e));
  }
  if (isObj(edited)) {
    const out: Obj = isObj(base) ? { ...base } : {};
    for (const [k, v] of Object.entries(edited)) {
      if (unset(v)) delete out[k];
      else out[k] = mergeConfig(out[k], v);
    }
    return out;
  }
  return edited;
}

/** Parses the advanced group's text; an empty text means no advanced settings. */
export function parseAdvanced(text: string | undefined): { ok: true; value?: Obj } | { ok: false } {
  if (!text || !text.trim()) return { ok: true };
  try {
    const v: unknown = JSON.parse(text);
    return isObj(v) ? { ok: true, value: v } : { ok: false };
  } catch {
    return { ok: false };
  }
}

/** The config to save: the form's values over the configuration it started from. */
export function fromFormValues(values: ConfigFormValues, base: DeviceConfig | undefined): DeviceConfig {
  const v = clone(values);
  const advanced = parseAdvanced(v._advanced);
  delete v._advanced;
  if (isObj(v.mqtt)) {
    v.mqtt.subscribe = trimSlots(v.mqtt.subscribe);
    v.mqtt.publish = trimSlots(v.mqtt.publish);
  }
  v.socket = trimSlots(v.socket);
  const global = isObj(v.global) ? v.global : {};
  global.advanced = advanced.ok ? advanced.value : undefined;
  v.global = global;
  return (prune(mergeConfig(base ?? {}, v)) ?? {}) as DeviceConfig;
}

/** `['mqtt', 'subscribe', 0, 'topic']` -> `mqtt.subscribe[0].topic`, the form's field name. */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

interface ZodIssueLike {
  code: string;
  path: readonly PropertyKey[];
  minimum?: unknown;
  maximum?: unknown;
  origin?: string;
  expected?: string;
  values?: readonly unknown[];
}

function issueOf(i: ZodIssueLike): ConfigIssue {
  if (i.code === 'too_small')
    return i.origin === 'string'
      ? { key: 'deviceDetail.config.err.required' }
      : { key: 'deviceDetail.config.err.min', vars: { min: Number(i.minimum) } };
  if (i.code === 'too_big')
    return i.origin === 'string'
      ? { key: 'deviceDetail.config.err.tooLong', vars: { max: Number(i.maximum) } }
      : { key: 'deviceDetail.config.err.max', vars: { max: Number(i.maximum) } };
  if (i.code === 'invalid_type' && i.expected === 'int') return { key: 'deviceDetail.config.err.int' };
  if (i.code === 'invalid_value' && i.values)
    return { key: 'deviceDetail.config.err.oneOf', vars: { values: i.values.join(', ') } };
  if (i.code === 'invalid_union') return { key: 'deviceDetail.config.err.choice' };
  return { key: 'deviceDetail.config.err.type' };
}

/** Every problem of a configuration, by form field name. */
export function configIssues(config: unknown): Record<string, ConfigIssue> {
  const r = deviceConfig.safeParse(config);
  const out: Record<string, ConfigIssue> = {};
  if (r.success) return out;
  for (const i of r.error.issues as unknown as ZodIssueLike[]) {
    const name = fieldName(i.path);
    out[name] ??= issueOf(i);
  }
  return out;
}

/** Splits `mqtt.subscribe[0].topic` back into `['mqtt', 'subscribe', 0, 'topic']`. */
export function pathOf(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of field.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) return [field];
    if (m[1]) out.push(m[1]);
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

/**
 * One field checked on its own: the value is placed in an otherwise empty config (every field is optional, so only
 * this field can fail), with empty slots before it so array positions line up.
 */
export function fieldIssue(field: string, value: unknown): ConfigIssue | undefined {
  if (unset(value)) return undefined;
  const path = pathOf(field);
  const root: Obj = {};
  let node: Obj | unknown[] = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const last = i === path.length - 1;
    const next: unknown = last ? value : typeof path[i + 1] === 'number' ? [] : {};
    if (Array.isArray(node) && typeof key === 'number') {
      while (node.length < key) node.push({});
      node[key] = next;
    } else {
      (node as Obj)[String(key)] = next;
    }
    node = next as Obj | unknown[];
  }
  return configIssues(root)[field];
}
