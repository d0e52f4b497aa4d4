import { appendFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';

/** Sends text messages. Real providers (Aliyun, Tencent...) come with the alerts issue. */
export interface SmsProvider {
  send(phone: string, templateKey: SmsTemplate, params: Record<string, string>): Promise<void>;
}

export type SmsTemplate = 'verification_code';

/**
 * Development provider: writes the message to the server log. With `codeLogFile` it also appends
 * `<phone> <code>` lines there, so end-to-end tests can read codes without scraping logs.
 */
export class LogSmsProvider implements SmsProvider {
  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly codeLogFile?: string,
  ) {}

  async send(phone: string, templateKey: SmsTemplate, params: Record<string, string>): Promise<void> {
    this.log.info(
      { sms: { phone, templateKey, params } },
      `SMS to ${phone}: ${templateKey} ${JSON.stringify(params)}`,
    );
    if (this.codeLogFile && params.code) await appendFile(this.codeLogFile, `${phone} ${params.code}\n`);
  }
}

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
