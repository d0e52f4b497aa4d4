import type { EmailSettings } from '@cellhub/contract/system-settings';
import nodemailer from 'nodemailer';
import type { DeliveryResult, OutgoingMessage } from './delivery';
import { DeliveryError, NotConfiguredError } from './delivery-error';

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
}

/**
 * One message over SMTP (nodemailer). `ssl`: implicit TLS (465); otherwise plain with STARTTLS when offered.
 * The Message-ID is derived from the delivery, so a retry after an unclear failure carries the same id and
 * receiving systems can drop the copy. A 5xx reply to the envelope or the message (mailbox unknown, refused) is
 * final; connection, timeout, 4xx and sign-in failures are retried.
 */
export async function sendEmail(
  email: EmailSettings,
  message: OutgoingMessage,
  timeoutMs: number,
): Promise<DeliveryResult> {
  if (!email.host || !email.account) throw new NotConfiguredError('Email (SMTP host and account)');
  const transport = nodemailer.createTransport({
    host: email.host,
    port: email.port,
    secure: email.ssl,
    auth: email.password ? { user: email.account, pass: email.password } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  const domain = email.account.split('@')[1] ?? 'cellhub.local';
  try {
    const info = await transport.sendMail({
      from: { name: email.nickname || 'Cellhub', address: email.account },
      to: message.to,
      subject: message.subject ?? defaultSubject(message),
      text: message.body,
      messageId: `<${message.reference}@${domain}>`,
    });
    if (info.rejected.length > 0) {
      throw new DeliveryError(`SMTP server refused ${info.rejected.join(', ')}`, false);
    }
    return { providerMessageId: info.messageId };
  } catch (err) {
    if (err instanceof DeliveryError) throw err;
    const e = err as SmtpError;
    const reply = e.response ? `: ${e.response}` : '';
    const permanent = (e.responseCode ?? 0) >= 500 && e.code !== 'EAUTH';
    throw new DeliveryError(`SMTP ${e.code ?? 'error'} ${e.message}${reply}`.slice(0, 300), !permanent);
  } finally {
    transport.close();
  }
}

function defaultSubject(message: OutgoingMessage): string {
  switch (message.template) {
    case 'verify_code':
      return 'Cellhub verification code';
    case 'test':
      return 'Cellhub test message';
    case 'alert_raise':
      return 'Cellhub alert';
    case 'alert_recover':
      return 'Cellhub alert recovered';
    case 'sim_expiry':
      return 'Cellhub SIM package expiring';
    case 'sim_data_low':
      return 'Cellhub SIM data running low';
  }
}
