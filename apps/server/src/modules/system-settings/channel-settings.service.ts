import { randomInt } from 'node:crypto';
import {
  type DeliveryItem,
  type EmailSettings,
  type NotifyChannelName,
  SECRET_MASK,
  SETTINGS_SECRET_FIELDS,
  type SmsSettings,
  type SystemSettingsView,
  type WechatSettings,
} from '@cellhub/contract/system-settings';
import { AppError, formError } from '../../lib/app-error';
import { requireAdmin } from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import { normalizePhone } from '../../lib/phone';
import { writeAudit } from '../audit/audit.service';
import { sendNow, toDeliveryItem } from '../notify/notify.service';
import { findUserById } from '../users/users.service';
import { CHANNEL_SETTING_KEYS, type ChannelSettings, loadChannelSettings } from './channel-settings';
import { setSetting } from './system-settings.service';

interface ChannelValues {
  sms: SmsSettings;
  email: EmailSettings;
  wechat: WechatSettings;
}

const isSecret = (channel: NotifyChannelName, field: string): boolean =>
  (SETTINGS_SECRET_FIELDS[channel] as readonly string[]).includes(field);

/** Secret fields answer SECRET_MASK when set, '' when not: the browser never sees a stored secret. */
function masked(settings: ChannelSettings): ChannelSettings {
  const out = structuredClone(settings) as unknown as Record<NotifyChannelName, Record<string, unknown>>;
  for (const channel of Object.keys(SETTINGS_SECRET_FIELDS) as NotifyChannelName[]) {
    for (const field of SETTINGS_SECRET_FIELDS[channel]) {
      out[channel][field] = out[channel][field] ? SECRET_MASK : '';
    }
  }
  return out as unknown as ChannelSettings;
}

/** GET /api/system/settings: the three channels, secrets masked, plus the admin's own test targets. */
export async function getSystemSettings(deps: Deps, actor: Actor): Promise<SystemSettingsView> {
  requireAdmin(actor);
  const settings = masked(await loadChannelSettings(deps.db, deps.box));
  const me = await findUserById(deps.db, actor.uid);
  return {
    ...settings,
    test_targets: {
      phone: me?.phone ?? null,
      email: me?.email || null,
      wechat_openid: me?.wechatOpenid ?? null,
    },
  };
}

/**
 * PUT /api/system/settings/<channel>: replaces the channel's settings. A secret field sent as '' or SECRET_MASK keeps
 * its stored value (the form shows "Set" and sends nothing back). Stored and audited in one transaction; the audit
 * row names the changed fields, never a secret's value.
 */
export async function updateChannelSettings<C extends NotifyChannelName>(
  deps: Deps,
  actor: Actor,
  channel: C,
  input: ChannelValues[C],
): Promise<SystemSettingsView> {
  requireAdmin(actor);
  const keys = CHANNEL_SETTING_KEYS[channel] as Record<string, string>;
  await deps.db.transaction(async (tx) => {
    const before = (await loadChannelSettings(tx, deps.box))[channel] as Record<string, unknown>;
    // SMTP cannot sign in without a password: one must be sent, or already be stored.
    if (channel === 'email') {
      const sent = (input as { password?: string }).password;
      if ((!sent || sent === SECRET_MASK) && !before.password) throw formError('password', 'required');
    }
    const changed: string[] = [];
    for (const [field, value] of Object.entries(input as Record<string, unknown>)) {
      const key = keys[field];
      if (!key) continue;
      if (isSecret(channel, field)) {
        if (value === '' || value === SECRET_MASK) continue;
        if (value !== before[field]) changed.push(field);
        await setSetting(tx, deps.box, key, String(value), { secret: true });
        continue;
      }
      if (value !== before[field]) changed.push(field);
      await setSetting(tx, deps.box, key, String(value));
    }
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'system_settings_update',
      target: channel,
      ip: actor.ip,
      detail: { changed },
    });
  });
  return getSystemSettings(deps, actor);
}

const TEST_TEXT = {
  sms: 'Cellhub test message: the SMS channel works.',
  email: 'This is a test message from Cellhub: the email channel works.',
  wechat: 'Cellhub test message: the messaging app channel works.',
} as const satisfies Record<NotifyChannelName, string>;

/**
 * POST /api/system/settings/<channel>/test: one message through the saved settings, sent at once (sendNow) and
 * recorded. SMS goes through the verification code template with a random `code` (providers only send approved
 * templates). Errors: 20141 not configured, 31002 / 20117 / 90002 with the provider's reason. Audited either way.
 */
export async function sendTestMessage(
  deps: Deps,
  actor: Actor,
  channel: NotifyChannelName,
  target: string,
): Promise<DeliveryItem> {
  requireAdmin(actor);
  const to = channel === 'sms' ? normalizePhone(target) : target;
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const audit = (detail: Record<string, unknown>) =>
    writeAudit(deps.db, {
      uid: actor.uid,
      action: 'system_settings_test',
      target: channel,
      ip: actor.ip,
      detail: { to, ...detail },
    });
  try {
    const row = await sendNow(deps, {
      channel,
      to,
      template: 'test',
      subject: 'Cellhub test message',
      body: TEST_TEXT[channel],
      params: channel === 'sms' ? { code } : { time: deps.now().toISOString() },
      userId: actor.uid,
    });
    await audit({ status: 'sent', delivery: row.id });
    return toDeliveryItem(row);
  } catch (err) {
    if (err instanceof AppError) await audit({ status: 'failed', code: err.code, reason: err.message });
    throw err;
  }
}
