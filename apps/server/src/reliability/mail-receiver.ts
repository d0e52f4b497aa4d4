// Reliability suite support (not shipped): an SMTP receiver that records every mail with its Message-ID, as a
// receiving system that drops copies would, and can refuse for a while (421 at the greeting, as a mail server
// that is down for maintenance answers) or be gone altogether (connection refused).
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  messageId: string;
  subject: string;
}

export class MailReceiver {
  readonly received: ReceivedMail[] = [];
  /** While true every connection is answered 421 and closed. */
  refusing = false;
  refused = 0;
  /**
   * How long the answer to a mail's DATA waits after the mail is recorded: a sender killed meanwhile has had its
   * effect and not its acknowledgement, so it sends the mail again.
   */
  delayMs = 0;
  port = 0;
  private readonly server: SMTPServer;

  constructor(
    private readonly user: string,
    private readonly pass: string,
  ) {
    this.server = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onConnect: (_session, callback) => {
        if (!this.refusing) return callback();
        this.refused += 1;
        const err = new Error('Service not available, try again later') as Error & { responseCode: number };
        err.responseCode = 421;
        callback(err);
      },
      onAuth: (auth, _session, callback) => {
        if (auth.username === this.user && auth.password === this.pass)
          callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onData: (stream, _session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            this.received.push({ messageId: mail.messageId ?? '', subject: mail.subject ?? '' });
            if (this.delayMs > 0) setTimeout(() => callback(), this.delayMs);
            else callback();
          })
          .catch((err: Error) => callback(err));
      },
    });
    // A client killed in the middle of a conversation resets its socket: a normal event for a mail server.
    this.server.on('error', () => undefined);
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
