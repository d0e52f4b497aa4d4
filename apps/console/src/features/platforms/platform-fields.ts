import { PLATFORM_SECRET_FIELDS, type PlatformType } from '@cellhub/contract/platforms';

export type FieldKind = 'text' | 'number' | 'bool' | 'secret' | 'select';

export interface PlatformField {
  name: string;
  kind: FieldKind;
  required?: boolean;
  /** The server's default, shown when creating. */
  initial?: string | number | boolean;
  options?: (string | number)[];
}

/** The fields of each type's platform_config, in the order the form shows them (contract: platforms.ts). */
export const PLATFORM_FIELDS: Record<PlatformType, PlatformField[]> = {
  aliyun: [
    { name: 'region_id', kind: 'text', required: true, initial: 'cn-shanghai' },
    { name: 'host', kind: 'text' },
    { name: 'port', kind: 'number', initial: 1883 },
    { name: 'securemode', kind: 'select', options: [3, 2], initial: 3 },
    { name: 'signmethod', kind: 'select', options: ['hmacsha256', 'hmacsha1'], initial: 'hmacsha256' },
    { name: 'access_key_id', kind: 'text' },
    { name: 'access_key_secret', kind: 'secret' },
  ],
  tencent: [
    { name: 'region', kind: 'text', initial: 'ap-guangzhou' },
    { name: 'host', kind: 'text' },
    { name: 'port', kind: 'number', initial: 1883 },
    { name: 'signmethod', kind: 'select', options: ['hmacsha256', 'hmacsha1'], initial: 'hmacsha256' },
    { name: 'token_ttl_days', kind: 'number', initial: 365 },
    { name: 'secret_id', kind: 'text' },
    { name: 'secret_key', kind: 'secret' },
  ],
  azure: [
    { name: 'hub_host', kind: 'text', required: true },
    { name: 'port', kind: 'number', initial: 8883 },
    { name: 'api_version', kind: 'text', initial: '2021-04-12' },
    { name: 'token_ttl_days', kind: 'number', initial: 365 },
    { name: 'policy_name', kind: 'text' },
    { name: 'policy_key', kind: 'secret' },
  ],
  netkit: [
    { name: 'host', kind: 'text', required: true },
    { name: 'port', kind: 'number', initial: 1883 },
    { name: 'tls', kind: 'bool', initial: false },
    { name: 'app_key', kind: 'text', required: true },
    { name: 'app_secret', kind: 'secret' },
  ],
  mqtt: [
    { name: 'host', kind: 'text', required: true },
    { name: 'port', kind: 'number', initial: 1883 },
    { name: 'tls', kind: 'bool', initial: false },
    { name: 'username', kind: 'text' },
    { name: 'password', kind: 'secret' },
    { name: 'client_id_prefix', kind: 'text' },
  ],
};

/** Keeps only the fields of the type and drops empty optional texts so the server's defaults apply. */
export function configFor(type: PlatformType, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of PLATFORM_FIELDS[type]) {
    const v = values[f.name];
    if (v === undefined || v === null) continue;
    if (typeof v === 'string' && v.trim() === '' && !PLATFORM_SECRET_FIELDS[type].includes(f.name)) continue;
    out[f.name] = typeof v === 'string' && f.kind !== 'secret' ? v.trim() : v;
  }
  return out;
}

export const initialConfig = (type: PlatformType): Record<string, unknown> =>
  Object.fromEntries(
    PLATFORM_FIELDS[type].filter((f) => f.initial !== undefined).map((f) => [f.name, f.initial]),
  );
