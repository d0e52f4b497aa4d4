import { lookup } from 'node:dns/promises';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import type { EmailSettings } from '@cellhub/contract/system-settings';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundRefusal, type Resolver } from '../../lib/outbound';
import { allowTestTarget, testOutboundAllow } from '../../test/outbound';
import type { OutgoingMessage } from './delivery';
import { DeliveryError } from './delivery-error';
import { sendEmail, type SmtpLimits } from './email.adapter';

/** A TCP listener on 127.0.0.1 that keeps what each connection sends; `talk` plays the server's side. */
async function tcpListener(talk?: (socket: Socket, data: () => string) => void) {
  const sockets: Socket[] = [];
  const received: Buffer[][] = [];
  const server: Server = createServer((socket) => {
    const chunks: Buffer[] = [];
    sockets.push(socket);
    received.push(chunks);
    socket.on('data', (b: Buffer) => chunks.push(b));
    socket.on('error', () => undefined);
    talk?.(socket, () => Buffer.concat(chunks).toString('latin1'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => sockets.length,
    /** Bytes of connection `i` so far, as latin1 (a TLS ClientHello carries the SNI name in clear). */
    bytes: (i: number) => Buffer.concat(received[i] ?? []).toString('latin1'),
    close: () => {
      for (const s of sockets) s.destroy();
      closing ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return closing;
    },
  };
}

/** Polls until `check` holds (a positive condition, not a fixed wait). */
async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A real SMTP server on 127.0.0.1 that requires AUTH and keeps each message's envelope recipients and user. */
async function smtpServer(user: string, pass: string) {
  const received: { to: string[]; user: unknown }[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === pass) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), user: session.user });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  allowTestTarget(`smtp://127.0.0.1:${port}`);
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const SMTP_USER = 'alerts@example.com';
const SMTP_PASS = 'smtp-Secret-1';
const settings = (over: Partial<EmailSettings>): EmailSettings => ({
  host: '127.0.0.1',
  port: 25,
  ssl: false,
  account: SMTP_USER,
  password: SMTP_PASS,
  nickname: 'Cellhub',
  ...over,
});
let n = 0;
const message = (to = 'oncall@example.com'): OutgoingMessage => ({
  to,
  template: 'test',
  subject: 'Fence test',
  body: 'body',
  params: {},
  reference: `cellhub-${++n}`,
});

const NAMES: Record<string, { address: string; family: number }[]> = {
  'internal.example': [{ address: '127.0.0.1', family: 4 }],
  'mail.example': [{ address: '127.0.0.1', family: 4 }],
};
const resolver: Resolver = async (hostname) => {
  // Answered from /etc/hosts: the one real lookup.
  if (hostname === 'localhost') return lookup('localhost', { all: true });
  const answer = NAMES[hostname];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answer;
};
const limits = (over: Partial<SmtpLimits> = {}): SmtpLimits => ({
  timeoutMs: 3000,
  allow: testOutboundAllow,
  resolve: resolver,
  ...over,
});

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const err = await promise.then(
    () => new Error('sent'),
    (e: unknown) => e,
  );
  if (!(err instanceof DeliveryError)) throw new Error(`expected a DeliveryError, got ${String(err)}`);
  return err;
}

let smtp: Awaited<ReturnType<typeof smtpServer>>;
let victim: Awaited<ReturnType<typeof tcpListener>>;
let closedPort: number;

beforeAll(async () => {
  smtp = await smtpServer(SMTP_USER, SMTP_PASS);
  // Not on the allow-list: an SMTP-looking service inside the network.
  victim = await tcpListener((socket) => socket.write('220 internal ESMTP\r\n'));
  const gone = await tcpListener();
  closedPort = gone.port;
  await gone.close();
});
afterAll(async () => {
  await Promise.all([smtp?.close(), victim?.close()]);
});

describe('sendEmail through the outbound fence', () => {
  it('delivers through an SMTP server the allow-list names', async () => {
    const result = await sendEmail(settings({ port: smtp.port }), message('fenced@example.com'), limits());
    expect(result.providerMessageId).toMatch(/^<cellhub-\d+@example\.com>$/);
    // sendMail resolves after the server's 250 to the data, which smtp-server sends once onData has recorded it.
    expect(smtp.received).toEqual([{ to: ['fenced@example.com'], user: SMTP_USER }]);
  });

  it.each([
    ['dotted loopback', '127.0.0.1'],
    ['short form', '127.1'],
    ['one decimal number', '2130706433'],
    ['hex parts', '0x7f.1'],
    ['localhost', 'localhost'],
    ['0.0.0.0', '0.0.0.0'],
    ['a name resolving to loopback', 'internal.example'],
  ])('refuses %s for good, before any packet, as 40004 on host', async (_name, host) => {
    const err = await failure(sendEmail(settings({ host, port: victim.port }), message(), limits()));
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('SMTP host refused: the host is a private or local address');
    expect(outboundRefusal(err, 'host')).toMatchObject({
      code: 40004,
      httpStatus: 400,
      details: [{ field: 'host', message: 'the host is a private or local address' }],
    });
    expect(victim.connections()).toBe(0);
  });

  it('answers an open and a closed internal port alike', async () => {
    const answers = await Promise.all(
      [victim.port, closedPort].map((port) => failure(sendEmail(settings({ port }), message(), limits()))),
    );
    const [open, closed] = answers.map((e) => ({ message: e.message, retryable: e.retryable }));
    expect(closed).toEqual(open);
    expect(open).toEqual({
      message: 'SMTP host refused: the host is a private or local address',
      retryable: false,
    });
    expect(victim.connections()).toBe(0);
  });

  it('connects to the checked address and presents the host name in TLS (implicit TLS)', async () => {
    // Plays the server side only far enough to read the ClientHello, which carries the SNI name in clear.
    const tls = await tcpListener();
    allowTestTarget(`smtp://127.0.0.1:${tls.port}`);
    try {
      const sending = failure(
        sendEmail(settings({ host: 'mail.example', port: tls.port, ssl: true }), message(), limits()),
      );
      await eventually(() => tls.bytes(0).includes('mail.example'));
      // A TLS handshake record (0x16) from the first byte, on the address the name resolved to and was checked.
      expect(tls.bytes(0).charCodeAt(0)).toBe(0x16);
      await tls.close();
      expect((await sending).retryable).toBe(true);
    } finally {
      await tls.close();
    }
  });

  it('presents the host name in the STARTTLS upgrade too', async () => {
    const starttls = await tcpListener((socket, data) => {
      socket.write('220 mail.example ESMTP\r\n');
      let answered = 0;
      socket.on('data', () => {
        const lines = data().split('\r\n');
        for (; answered < lines.length - 1; answered++) {
          const line = lines[answered]!.toUpperCase();
          if (line.startsWith('EHLO')) socket.write('250-mail.example\r\n250 STARTTLS\r\n');
          else if (line === 'STARTTLS') socket.write('220 ready to start TLS\r\n');
        }
      });
    });
    allowTestTarget(`smtp://127.0.0.1:${starttls.port}`);
    try {
      const sending = failure(
        sendEmail(settings({ host: 'mail.example', port: starttls.port }), message(), limits()),
      );
      await eventually(() => /STARTTLS\r\n[\s\S]*mail\.example/.test(starttls.bytes(0)));
      await starttls.close();
      expect((await sending).retryable).toBe(true);
    } finally {
      await starttls.close();
    }
  });

  it('a host that is not a host name is refused for good', async () => {
    const err = await failure(
      sendEmail(settings({ host: 'user@127.0.0.1', port: victim.port }), message(), limits()),
    );
    expect(err.retryable).toBe(false);
    expect(victim.connections()).toBe(0);
  });
});
