import {
  type EmailSettings,
  emailSettings,
  type SmsSettings,
  smsSettings,
  type WechatSettings,
  wechatSettings,
} from '@cellhub/contract/system-settings';
import type { DbOrTx } from '../../db/client';
import type { SecretBox } from '../../lib/crypto';
import { getSettings, SETTING_KEYS } from './system-settings.service';

/**
 * Where each channel field lives in system_settings. One row per field, so the messaging app's appid and secret are
 * the same rows the WeChat QR sign-in reads. Secret fields are sealed (bound to their key name).
 */
export const CHANNEL_SETTING_KEYS = {
  sms: {
    provider: 'sms.provider',
    access_key_id: 'sms.access_key_id',
    access_key_secret: 'sms.access_key_secret',
    sign_name: 'sms.sign_name',
    template_verify_code: 'sms.template_verify_code',
    template_alert_raise: 'sms.template_alert_raise',
    template_alert_recover: 'sms.template_alert_recover',
    template_sim_expiry: 'sms.template_sim_expiry',
    template_sim_data_low: 'sms.template_sim_data_low',
    sdk_app_id: 'sms.sdk_app_id',
    region: 'sms.region',
  },
  email: {
    host: 'email.host',
    port: 'email.port',
    account: 'email.account',
    nickname: 'email.nickname',
    ssl: 'email.ssl',
    password: 'email.password',
  },
  wechat: {
    appid: SETTING_KEYS.wechatAppid,
    secret: SETTING_KEYS.wechatSecret,
    template_id: 'wechat.template_id',
  },
} as const satisfies {
  sms: Record<keyof SmsSettings, string>;
  email: Record<keyof EmailSettings, string>;
  wechat: Record<keyof WechatSettings, string>;
};

export interface ChannelSettings {
  sms: SmsSettings;
  email: EmailSettings;
  wechat: WechatSettings;
}

const ALL_KEYS = Object.values(CHANNEL_SETTING_KEYS).flatMap((fields) => Object.values(fields));

/**
 * The stored settings of the three channels, secrets decrypted: for the adapters only, never for a response.
 * A stored value that no longer passes the schema (an older format) falls back to the field's default.
 */
export async function loadChannelSettings(db: DbOrTx, box: SecretBox): Promise<ChannelSettings> {
  const stored = await getSettings(db, box, ALL_KEYS);
  const pick = (fields: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(fields)
        .filter(([, key]) => stored.has(key))
        .map(([field, key]) => [field, decode(field, stored.get(key)!)]),
    );
  return {
    sms: parseOrDefault(smsSettings, pick(CHANNEL_SETTING_KEYS.sms)),
    email: parseOrDefault(emailSettings, pick(CHANNEL_SETTING_KEYS.email)),
    wechat: parseOrDefault(wechatSettings, pick(CHANNEL_SETTING_KEYS.wechat)),
  };
}

// Settings rows are text; the two non-text fields are stored as their JSON.
function decode(field: string, value: string): unknown {
  if (field === 'port') return Number(value);
  if (field === 'ssl') return value === 'true';
  return value;
}

function parseOrDefault<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } } & {
    parse(v: unknown): T;
  },
  value: Record<string, unknown>,
): T {
  const whole = schema.safeParse(value);
  if (whole.success) return whole.data;
  // Drop the fields that fail one by one rather than losing the whole channel.
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (schema.safeParse({ ...kept, [k]: v }).success) kept[k] = v;
  }
  return schema.parse(kept);
}
