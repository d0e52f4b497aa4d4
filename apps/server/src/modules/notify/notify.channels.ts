import { appendFile } from 'node:fs/promises';
import { AppError } from '../../lib/app-error';
import { type ChannelSettings, loadChannelSettings } from '../system-settings/channel-settings';
import { sendAliyunSms } from './aliyun-sms.adapter';
import type { ChannelDeps, DeliveryResult, OutgoingMessage } from './delivery';
import { NotConfiguredError } from './delivery-error';
import { sendEmail } from './email.adapter';
import { callLimits } from './http';
import { sendTencentSms } from './tencent-sms.adapter';
import type { DeliveryRow } from './notify.table';
import { sendWechatTemplate } from './wechat.adapter';

export { DeliveryError, NotConfiguredError } from './delivery-error';

export const messageOf = (row: DeliveryRow): OutgoingMessage => ({
  to: row.recipient,
  template: row.template,
  subject: row.subject,
  body: row.body,
  params: row.params,
  reference: `cellhub-${row.id}`,
});

/** Sends one message through its channel with the settings saved now (an admin's change applies to the next send). */
export async function deliver(
  deps: ChannelDeps,
  row: DeliveryRow,
  message: OutgoingMessage = messageOf(row),
): Promise<DeliveryResult> {
  const settings = await loadChannelSettings(deps.db, deps.box);
  switch (row.channel) {
    case 'sms':
      return deliverSms(deps, settings, message);
    case 'email':
      return sendEmail(settings.email, message, callLimits(deps.config));
    case 'wechat':
      return sendWechatTemplate(deps, wechatApp(deps, settings), message);
  }
}

async function deliverSms(
  deps: ChannelDeps,
  settings: ChannelSettings,
  message: OutgoingMessage,
): Promise<DeliveryResult> {
  const sms = settings.sms;
  const limits = callLimits(deps.config);
  switch (sms.provider) {
    case 'log':
      return logSms(deps, message);
    case 'aliyun':
      return sendAliyunSms(deps.config.notify.aliyunSmsUrl, sms, message, deps.now(), limits);
    case 'tencent':
      return sendTencentSms(deps.config.notify.tencentSmsUrl, sms, message, deps.now(), limits);
  }
}

/**
 * Development provider: the message goes to the server log. With SMS_CODE_LOG_FILE a verification code is also
 * appended as `<phone> <code>` (the end-to-end tests read codes there, as they did before channels existed).
 */
async function logSms(deps: ChannelDeps, message: OutgoingMessage): Promise<DeliveryResult> {
  deps.log.info(
    { sms: { phone: message.to, template: message.template, params: message.params } },
    `SMS to ${message.to}: ${message.template} ${JSON.stringify(message.params)}`,
  );
  const code = message.params.code;
  if (deps.config.smsCodeLogFile && code && message.template === 'verify_code') {
    await appendFile(deps.config.smsCodeLogFile, `${message.to} ${code}\n`);
  }
  return {};
}

/** Environment first (as the QR sign-in does), then the system settings. */
function wechatApp(deps: ChannelDeps, settings: ChannelSettings) {
  return {
    apiUrl: deps.config.wechat.apiUrl,
    appid: deps.config.wechat.appid ?? settings.wechat.appid,
    secret: deps.config.wechat.secret ?? settings.wechat.secret,
    templateId: settings.wechat.template_id,
  };
}

/** Turns a not-configured channel into the contract's code for synchronous callers. */
export function notConfigured(err: unknown): AppError | undefined {
  return err instanceof NotConfiguredError
    ? new AppError(20141, 400, err.message, { reason: err.message })
    : undefined;
}
