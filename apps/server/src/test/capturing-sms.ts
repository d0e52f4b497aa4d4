import type { SmsProvider, SmsTemplate } from '../lib/sms';

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
