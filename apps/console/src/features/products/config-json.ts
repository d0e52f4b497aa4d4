import { deviceConfig, type DeviceConfig } from '@cellhub/contract/device-config';

export type ConfigParse =
  | { ok: true; config: DeviceConfig }
  | { ok: false; reason: 'json' }
  | { ok: false; reason: 'schema'; issues: string[] };

/** Text of the JSON editor -> a configuration the contract accepts, or why not (field paths of PROTOCOL.md). */
export function parseConfigJson(text: string): ConfigParse {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return { ok: false, reason: 'json' };
  }
  const parsed = deviceConfig.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      reason: 'schema',
      issues: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`),
    };
  }
  return { ok: true, config: parsed.data };
}

/** `a.b[0].c` -> value, for the grouped read-only view. */
export function flatten(value: unknown, prefix = '', out: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) {
    value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.push([prefix, String(value)]);
  }
  return out;
}
