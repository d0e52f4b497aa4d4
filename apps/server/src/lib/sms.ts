/**
 * Sends sign-in and phone-change codes. The app's provider is notify's ChannelSmsProvider: the SMS channel of the
 * system settings (Aliyun, Tencent, or the log provider that also writes SMS_CODE_LOG_FILE), docs/notifications.md.
 */
export interface SmsProvider {
  send(phone: string, templateKey: SmsTemplate, params: Record<string, string>): Promise<void>;
}

export type SmsTemplate = 'verification_code';

/** Keeps what was sent; tests read codes from it. */
export class CapturingSmsProvider implements SmsProvider {
  readonly sent: { phone: string; templateKey: SmsTemplate; params: Record<string, string> }[] = [];

  async send(phone: string, templateKey: SmsTemplate, params: Record<string, string>): Promise<void> {
    this.sent.push({ phone, templateKey, params });
  }

  lastCode(phone: string): string | undefined {
    return this.sent.findLast((m) => m.phone === phone)?.params.code;
  }
}
