import type { SmsProvider, SmsTemplate } from '../../lib/sms';
import type { ChannelDeps } from './delivery';
import { sendNow } from './notify.service';

/**
 * The SmsProvider of sign-in and phone-change codes: the SMS channel as configured in the system settings (Aliyun,
 * Tencent, or the log provider with its SMS_CODE_LOG_FILE), through sendNow, so each code is also a recorded
 * delivery (with the code masked). Failures reach sms-code.service, which answers 31002.
 */
export class ChannelSmsProvider implements SmsProvider {
  constructor(private readonly deps: () => ChannelDeps) {}

  async send(phone: string, templateKey: SmsTemplate, params: Record<string, string>): Promise<void> {
    if (templateKey !== 'verification_code') throw new Error(`unknown SMS template ${String(templateKey)}`);
    const minutes = params.minutes ?? '5';
    await sendNow(this.deps(), {
      channel: 'sms',
      to: phone,
      template: 'verify_code',
      body: `Your Cellhub verification code is ${params.code}. It is valid for ${minutes} minutes.`,
      params: { code: params.code ?? '' },
    });
  }
}
