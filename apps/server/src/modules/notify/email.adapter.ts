import type { EmailSettings } from '@cellhub/contract/system-settings';
import nodemailer from 'nodemailer';
import type { DeliveryResult, OutgoingMessage } from './delivery';
import { DeliveryError, NotConfiguredError } from './delivery-error';
import { connectOutbound, OutboundError, type Resolver } from '../../lib/outbound';

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
}

/** What bounds an SMTP send: its time limit, and the hosts OUTBOUND_ALLOW opens (CallLimits of http.ts). */
export interface SmtpLimits {
  timeoutMs: number;
  allow: readonly string[];
  /** Tests only: name resolution without DNS. */
  resolve?: Resolver;
}

/**
 * One message over SMTP (nodemailer). `ssl`: implicit TLS (465); otherwise plain with STARTTLS when offered.
 * The Message-ID is derived from the delivery, so a retry after an unclear failure carries the same id and
 * receiving systems can drop the copy. A 5xx reply to the envelope or the message (mailbox unknown, refused) is
 * final; connection, timeout, 4xx and sign-in failures are retried.
 *
 * The host is typed by an admin, so the connection is opened by the outbound client (lib/outbound.ts,
 * docs/outbound.md): the address connected to is the address checked, a private or local one is refused unless
 * OUTBOUND_ALLOW names it (a permanent failure carrying the refusal as its cause, 40004 for a send-test), and
 * nodemailer gets the open socket, keeping the host name for TLS (SNI and the certificate check).
 */
export async function sendEmail(
  email: EmailSettings,
  message: OutgoingMessage,
  limits: SmtpLimits,
): Promise<DeliveryResult> {
  if (!email.host || !email.account) throw new NotConfiguredError('Email (SMTP host and account)');
  const { timeoutMs } = limits;
  const transport = nodemailer.createTransport({
    host: email.host,
    port: email.port,
    secure: email.ssl,
    auth: email.password ? { user: email.account, pass: email.password } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // nodemailer's own DNS lookup and connect are never used: the fenced socket is handed over as an open
    // connection, and TLS (implicit or STARTTLS) runs on it with the checked name as servername.
    getSocket: (_options, callback) => {
      connectOutbound(limits, email.host, email.port).then(
        ({ socket, servername }) => callback(null, { connection: socket, servername }),
        (err: Error) => callback(err),
      );
    },
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
    if (err instanceof OutboundError) throw connectFailure(err);
    const e = err as SmtpError;
    const reply = e.response ? `: ${e.response}` : '';
    const permanent = (e.responseCode ?? 0) >= 500 && e.code !== 'EAUTH';
    throw new DeliveryError(`SMTP ${e.code ?? 'error'} ${e.message}${reply}`.slice(0, 300), !permanent);
  } finally {
    transport.close();
  }
}

/** A host refused or not valid is final (trying again cannot help); no connection or no answer in time is retried. */
function connectFailure(err: OutboundError): DeliveryError {
  const failure =
    err.kind === 'refused' || err.kind === 'invalid_url'
      ? new DeliveryError(`SMTP host refused: ${err.message}`, false)
      : new DeliveryError(`SMTP ${err.kind === 'timeout' ? 'ETIMEDOUT' : 'ECONNECTION'} ${err.message}`);
  // sendNow finds the refusal here and answers 40004 (outboundRefusal).
  failure.cause = err;
  return failure;
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
