/**
 * System settings (seed: /system/setting, admin only): the notification channels. /api/system/settings.
 *
 * - `GET /api/system/settings` answers the three channels. Secret fields (SMS access key secret, email password,
 *   messaging app secret) are never sent back: they answer SECRET_MASK when one is stored, '' otherwise.
 * - `PUT /api/system/settings/{sms|email|wechat}` replaces one channel. A secret field sent as '' or SECRET_MASK (or
 *   left out) keeps the stored value. Secrets are stored encrypted (AES-256-GCM under the master key).
 * - `POST /api/system/settings/{sms|email|wechat}/test` sends a test message through the saved settings, at once,
 *   and answers the delivery. Failures: 20141 channel not configured, 31002 SMS send failed, 20117 email send failed,
 *   90002 WeChat push failed; `message` carries the provider's reason.
 *
 * How each channel signs and delivers: docs/notifications.md.
 */
import { z } from 'zod';
import { text as safeText } from './text';
import { PHONE_RULE } from './auth';
import { SECRET_MASK } from './platforms';

export { SECRET_MASK };

export const NOTIFY_CHANNELS = ['sms', 'email', 'wechat'] as const;
export type NotifyChannelName = (typeof NOTIFY_CHANNELS)[number];

export const SMS_PROVIDERS = ['log', 'aliyun', 'tencent'] as const;
export type SmsProviderName = (typeof SMS_PROVIDERS)[number];

const text = (max: number) => safeText().trim().max(max).default('');
const secret = safeText().max(512).default('');
const HOST_RULE = /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/;

/**
 * SMS. `log` writes messages to the server log (development). Aliyun: access key id/secret, sign name (签名) and
 * template codes (SMS_...). Tencent: SecretId/SecretKey, SmsSdkAppId, sign name, template ids and region.
 * Template variables: verify code `${code}`; alerts `${device}`, `${property}`, `${value}`, `${time}` (Tencent
 * takes them in that order).
 */
export const smsSettings = z.object({
  provider: z.enum(SMS_PROVIDERS).default('log'),
  access_key_id: text(128),
  access_key_secret: secret,
  sign_name: text(64),
  template_verify_code: text(64),
  template_alert_raise: text(64),
  template_alert_recover: text(64),
  /** SIM reminders: `${iccid}`, `${phone}`, `${expiry}`, `${days}` / `${iccid}`, `${phone}`, `${remaining}`, `${percent}`. */
  template_sim_expiry: text(64),
  template_sim_data_low: text(64),
  /** Tencent only: the SMS application's SmsSdkAppId. */
  sdk_app_id: z
    .union([
      z.literal(''),
      safeText()
        .trim()
        .regex(/^\d{4,20}$/, 'sdk_app_id_rule'),
    ])
    .default(''),
  /** Tencent only. */
  region: z
    .union([
      z.literal(''),
      safeText()
        .trim()
        .regex(/^[a-z]{2}-[a-z]{2,20}$/, 'region_rule'),
    ])
    .default(''),
});
export type SmsSettings = z.infer<typeof smsSettings>;
export type SmsSettingsBody = z.input<typeof smsSettings>;

/** SMTP. `ssl`: TLS from the first byte (usually port 465); otherwise STARTTLS when the server offers it. */
export const emailSettings = z.object({
  host: z.union([z.literal(''), safeText().trim().max(253).regex(HOST_RULE, 'host_rule')]).default(''),
  port: z.number().int().min(1).max(65535).default(465),
  /** Sign-in name and sender address. */
  account: z.union([z.literal(''), z.email().max(254)]).default(''),
  /** Sender's display name. */
  nickname: text(64),
  ssl: z.boolean().default(true),
  password: secret,
});
export type EmailSettings = z.infer<typeof emailSettings>;
export type EmailSettingsBody = z.input<typeof emailSettings>;
/**
 * PUT /api/system/settings/email: a channel that can send names its server and its account; an empty form is
 * refused (10113 naming the fields) rather than "saved". The password is checked by the service, which knows
 * whether one is stored.
 */
export const emailSettingsBody = emailSettings.superRefine((v, ctx) => {
  if (!v.host) ctx.addIssue({ code: 'custom', path: ['host'], message: 'required' });
  if (!v.account) ctx.addIssue({ code: 'custom', path: ['account'], message: 'required' });
});

/**
 * The messaging app (WeChat official account): appid and secret (also used by the QR sign-in), and the template
 * message id alerts are sent with. Template data: `content` (the message text) plus the alert's variables.
 */
export const wechatSettings = z.object({
  appid: z
    .union([
      z.literal(''),
      safeText()
        .trim()
        .regex(/^[A-Za-z0-9_-]{4,64}$/, 'appid_rule'),
    ])
    .default(''),
  secret,
  template_id: text(128),
});
export type WechatSettings = z.infer<typeof wechatSettings>;
export type WechatSettingsBody = z.input<typeof wechatSettings>;

export const systemSettings = z.object({
  sms: smsSettings,
  email: emailSettings,
  wechat: wechatSettings,
});
export type SystemSettings = z.infer<typeof systemSettings>;

/** Fields that are stored encrypted and answered masked. */
export const SETTINGS_SECRET_FIELDS = {
  sms: ['access_key_secret'],
  email: ['password'],
  wechat: ['secret'],
} as const satisfies Record<NotifyChannelName, readonly string[]>;

// --- send test ---------------------------------------------------------------------------------------------------

export const smsTestBody = z.object({ to: safeText().trim().regex(PHONE_RULE, 'phone_rule') });
export const emailTestBody = z.object({ to: z.email().max(254) });
/** The recipient's openid (a user who bound WeChat has one; the console offers the admin's own). */
export const wechatTestBody = z.object({
  to: safeText()
    .trim()
    .regex(/^[A-Za-z0-9_-]{6,64}$/, 'openid_rule'),
});
export type SettingsTestBody = z.infer<typeof smsTestBody>;

export const DELIVERY_STATUSES = ['pending', 'sending', 'sent', 'failed'] as const;
export type DeliveryStatusName = (typeof DELIVERY_STATUSES)[number];

/** One notification as recorded (test sends, verification codes and alerts alike). */
export const deliveryItem = z.object({
  id: z.number().int(),
  channel: z.enum(NOTIFY_CHANNELS),
  to: safeText(),
  template: safeText(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  last_error: safeText().nullable(),
  provider_message_id: safeText().nullable(),
  sentat: safeText().nullable(),
  createdat: safeText(),
});
export type DeliveryItem = z.infer<typeof deliveryItem>;

/** The signed-in admin's own phone, email and WeChat openid: the console prefills the test dialogs with them. */
export const settingsTestTargets = z.object({
  phone: safeText().nullable(),
  email: safeText().nullable(),
  wechat_openid: safeText().nullable(),
});
export type SettingsTestTargets = z.infer<typeof settingsTestTargets>;

/** GET /api/system/settings. */
export const systemSettingsView = systemSettings.extend({ test_targets: settingsTestTargets });
export type SystemSettingsView = z.infer<typeof systemSettingsView>;
