/**
 * Sends sign-in and phone-change codes. The app's provider is notify's ChannelSmsProvider: the SMS channel of the
 * system settings (Aliyun, Tencent, or the log provider that also writes SMS_CODE_LOG_FILE), docs/notifications.md.
 */
export interface SmsProvider {
  send(phone: string, templateKey: SmsTemplate, params: Record<string, string>): Promise<void>;
}

export type SmsTemplate = 'verification_code';
