/**
 * Local stand-ins for the internet services of the notification channels, as strict as the real ones where it
 * matters: a real SMTP server (smtp-server + mailparser), and HTTP fakes of Aliyun Dysmsapi, Tencent Cloud SMS and
 * the WeChat API that recompute every signature themselves (not with the adapters' code), refuse what the real
 * service refuses (bad signature, stale timestamp, reused nonce, wrong or expired token) and answer its documented
 * JSON. Each can be told to fail the next requests (HTTP 500, or one of its error answers) or be stopped and
 * restarted on the same port to play "provider down, then up". Tests only.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Config } from '../config';
import { allowTestTarget } from './outbound';

/** A notify config for tests: no background worker, the fakes' endpoints. */
export function notifyTestConfig(over: Partial<Config['notify']> = {}): Config['notify'] {
  return {
    aliyunSmsUrl: 'http://127.0.0.1:9',
    tencentSmsUrl: 'http://127.0.0.1:9',
    ratePerMinute: 100,
    retryBaseMs: 1000,
    pollMs: 0,
    sendTimeoutMs: 3000,
    ...over,
  };
}

// --- SMTP ----------------------------------------------------------------------------------------------------------

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  user: string | undefined;
  mail: ParsedMail;
}

export interface TestSmtp {
  port: number;
  received: ReceivedMail[];
  /** Waits until `n` messages arrived (or fails after `ms`). */
  waitFor(n: number, ms?: number): Promise<ReceivedMail[]>;
  /** Recipients refused with 550 from now on. */
  refuse: Set<string>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (port 0 unless given) that requires AUTH with `user`/`pass` when given. */
export async function startSmtp(
  options: { user?: string; pass?: string; port?: number } = {},
): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const refuse = new Set<string>();
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: !options.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address)) {
        const err = new Error('Mailbox unavailable') as Error & { responseCode: number };
        err.responseCode = 550;
        callback(err);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            user: typeof session.user === 'string' ? session.user : undefined,
            mail,
          });
          for (const w of waiters.splice(0)) w();
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  // Reached through OUTBOUND_ALLOW like every fake: the SMTP host is fenced (lib/outbound.ts connectOutbound).
  allowTestTarget(`smtp://127.0.0.1:${port}`);
  return {
    port,
    received,
    refuse,
    async waitFor(n, ms = 5000) {
      const deadline = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} mails, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// --- HTTP fakes (shared plumbing) ------------------------------------------------------------------------------------

interface Fake {
  url: string;
  port: number;
  /** Every request received, answered by the fake's logic or by failNext. */
  requests: number;
  /** Answer the next requests with these instead (status and raw body). */
  failNext(...answers: { status: number; body: string }[]): void;
  /** Stop listening (connections refused) / listen again on the same port. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

async function startFake(handler: Handler, port = 0): Promise<Fake> {
  const overrides: { status: number; body: string }[] = [];
  let requests = 0;
  let server: Server;
  const listen = async (p: number) => {
    server = createServer((req, res) => {
      requests++;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const forced = overrides.shift();
        if (forced) {
          res.writeHead(forced.status, { 'content-type': 'application/json' }).end(forced.body);
          return;
        }
        handler(req, Buffer.concat(chunks).toString('utf8'), res);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => resolve());
    });
    return (server.address() as AddressInfo).port;
  };
  const actual = await listen(port);
  allowTestTarget(`http://127.0.0.1:${actual}`);
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const fake: Fake = {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    requests: 0,
    failNext: (...answers) => overrides.push(...answers),
    stop: close,
    restart: async () => {
      await listen(actual);
    },
    close,
  };
  return live(fake, 'requests', () => requests);
}

/** Turns a field into a getter over the fake's running count. */
function live<T extends object>(target: T, field: keyof T & string, read: () => number): T {
  Object.defineProperty(target, field, { get: read, enumerable: true });
  return target;
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

let requestCounter = 0;
const requestId = () => `00000000-0000-4000-8000-${String(++requestCounter).padStart(12, '0')}`;

// --- Aliyun Dysmsapi -------------------------------------------------------------------------------------------------

export interface AliyunSent {
  params: Record<string, string>;
  templateParam: Record<string, string>;
}

export interface FakeAliyun extends Fake {
  sent: AliyunSent[];
  /** Refuse these numbers with isv.MOBILE_NUMBER_ILLEGAL. */
  badNumbers: Set<string>;
}

/**
 * Dysmsapi SendSms with RPC signature 1.0, verified independently: the query is split by hand, the canonical string
 * rebuilt with its own RFC 3986 encoder, HMAC-SHA1 with `secret&`. Timestamps more than 15 minutes from `now()` and
 * reused SignatureNonces are refused as Aliyun does.
 */
export async function startFakeAliyun(opts: {
  accessKeyId: string;
  accessKeySecret: string;
  now: () => Date;
}): Promise<FakeAliyun> {
  const sent: AliyunSent[] = [];
  const nonces = new Set<string>();
  const badNumbers = new Set<string>();
  const rfc3986 = (s: string) =>
    Array.from(Buffer.from(s, 'utf8'))
      .map((b) => {
        const c = String.fromCharCode(b);
        return /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join('');
  const fake = await startFake((req, _body, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const params: Record<string, string> = {};
    for (const [k, v] of url.searchParams) params[k] = v;
    const fail = (status: number, Code: string, Message: string) =>
      json(res, status, { RequestId: requestId(), Code, Message, HostId: 'dysmsapi.aliyuncs.com' });
    if (req.method !== 'GET' || url.pathname !== '/') return fail(404, 'InvalidAction.NotFound', 'not found');
    for (const p of [
      'AccessKeyId',
      'Action',
      'SignatureMethod',
      'SignatureNonce',
      'SignatureVersion',
      'Timestamp',
      'Version',
      'Signature',
    ]) {
      if (!params[p]) return fail(400, 'MissingParameter', `${p} is mandatory for this action.`);
    }
    if (params.SignatureMethod !== 'HMAC-SHA1' || params.SignatureVersion !== '1.0') {
      return fail(400, 'InvalidSignatureMethod', 'Specified signature method is not supported.');
    }
    if (params.AccessKeyId !== opts.accessKeyId) {
      return fail(404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.');
    }
    const given = params.Signature!;
    delete params.Signature;
    const canonical = Object.keys(params)
      .sort()
      .map((k) => `${rfc3986(k)}=${rfc3986(params[k]!)}`)
      .join('&');
    const toSign = `GET&${rfc3986('/')}&${rfc3986(canonical)}`;
    const expected = createHmac('sha1', `${opts.accessKeySecret}&`).update(toSign).digest('base64');
    if (given !== expected) {
      return fail(
        400,
        'SignatureDoesNotMatch',
        `Specified signature is not matched with our calculation. server string to sign is:${toSign}`,
      );
    }
    const ts = Date.parse(params.Timestamp!);
    if (
      !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(params.Timestamp!) ||
      Math.abs(ts - opts.now().getTime()) > 15 * 60_000
    ) {
      return fail(400, 'InvalidTimeStamp.Expired', 'Specified time stamp or date value is expired.');
    }
    if (nonces.has(params.SignatureNonce!)) {
      return fail(400, 'SignatureNonceUsed', 'Specified signature nonce was used already.');
    }
    nonces.add(params.SignatureNonce!);
    if (params.Action !== 'SendSms' || params.Version !== '2017-05-25') {
      return fail(
        400,
        'InvalidAction.NotFound',
        'Specified api is not found, please check your url and method.',
      );
    }
    for (const p of ['PhoneNumbers', 'SignName', 'TemplateCode']) {
      if (!params[p]) return fail(400, 'MissingParameter', `${p} is mandatory for this action.`);
    }
    if (badNumbers.has(params.PhoneNumbers!)) {
      return json(res, 200, {
        RequestId: requestId(),
        Code: 'isv.MOBILE_NUMBER_ILLEGAL',
        Message: '非法手机号',
      });
    }
    let templateParam: Record<string, string> = {};
    try {
      templateParam = params.TemplateParam
        ? (JSON.parse(params.TemplateParam) as Record<string, string>)
        : {};
    } catch {
      return json(res, 200, {
        RequestId: requestId(),
        Code: 'isv.INVALID_JSON_PARAM',
        Message: 'JSON参数不合法',
      });
    }
    sent.push({ params, templateParam });
    json(res, 200, { RequestId: requestId(), Code: 'OK', Message: 'OK', BizId: `9006${sent.length}^0` });
  });
  return Object.assign(fake, { sent, badNumbers });
}

// --- Tencent Cloud SMS -----------------------------------------------------------------------------------------------

export interface TencentSent {
  headers: Record<string, string>;
  body: {
    PhoneNumberSet: string[];
    SmsSdkAppId: string;
    SignName: string;
    TemplateId: string;
    TemplateParamSet: string[];
    SessionContext?: string;
  };
}

export interface FakeTencent extends Fake {
  sent: TencentSent[];
}

/**
 * SendSms 2021-01-11 with TC3-HMAC-SHA256, verified from the raw request: the signed headers named in
 * Authorization (content-type and host at least), the body's SHA-256, the credential scope's date against
 * X-TC-Timestamp, a timestamp within 5 minutes of `now()`. Errors answer HTTP 200 with `Response.Error`, as the API
 * does.
 */
export async function startFakeTencent(opts: {
  secretId: string;
  secretKey: string;
  sdkAppId: string;
  now: () => Date;
}): Promise<FakeTencent> {
  const sent: TencentSent[] = [];
  const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
  const mac = (k: Buffer | string, s: string) => createHmac('sha256', k).update(s, 'utf8').digest();
  const fake = await startFake((req, raw, res) => {
    const error = (Code: string, Message: string) =>
      json(res, 200, { Response: { Error: { Code, Message }, RequestId: requestId() } });
    const h = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(',') : (v ?? '');
    };
    const auth =
      /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d\d-\d\d)\/([a-z]+)\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
        h('authorization'),
      );
    if (!auth) return error('AuthFailure.InvalidAuthorization', 'Authorization header is malformed.');
    const [, secretId, date, service, signedHeaders, signature] = auth as unknown as string[];
    if (secretId !== opts.secretId)
      return error('AuthFailure.SecretIdNotFound', 'The SecretId is not found.');
    const timestamp = Number(h('x-tc-timestamp'));
    if (!Number.isInteger(timestamp) || Math.abs(timestamp * 1000 - opts.now().getTime()) > 5 * 60_000) {
      return error('AuthFailure.SignatureExpire', 'Signature expired.');
    }
    if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date) {
      return error('AuthFailure.SignatureFailure', 'The credential date does not match X-TC-Timestamp.');
    }
    const names = signedHeaders!.split(';');
    if (!names.includes('content-type') || !names.includes('host')) {
      return error('AuthFailure.SignatureFailure', 'content-type and host must be signed.');
    }
    const canonicalHeaders = names.map((n) => `${n}:${h(n).trim().toLowerCase()}\n`).join('');
    const url = new URL(req.url ?? '/', 'http://x');
    const canonical = [
      req.method,
      url.pathname,
      url.search.slice(1),
      canonicalHeaders,
      signedHeaders,
      sha(req.method === 'GET' ? '' : raw),
    ].join('\n');
    const stringToSign = [
      'TC3-HMAC-SHA256',
      String(timestamp),
      `${date}/${service}/tc3_request`,
      sha(canonical),
    ].join('\n');
    const key = mac(mac(mac(`TC3${opts.secretKey}`, date!), service!), 'tc3_request');
    const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
    if (expected !== signature) {
      return error(
        'AuthFailure.SignatureFailure',
        'The provided credentials could not be validated. Please check your signature is correct.',
      );
    }
    if (service !== 'sms' || h('x-tc-action') !== 'SendSms' || h('x-tc-version') !== '2021-01-11') {
      return error('InvalidAction', 'The action or version is not supported.');
    }
    if (!h('x-tc-region')) return error('MissingParameter', 'The region is missing.');
    let body: TencentSent['body'];
    try {
      body = JSON.parse(raw) as TencentSent['body'];
    } catch {
      return error('InvalidParameter', 'The body is not JSON.');
    }
    if (body.SmsSdkAppId !== opts.sdkAppId) {
      return error('FailedOperation.SmsSdkAppIdVerifyFail', 'SmsSdkAppId verification failed.');
    }
    if (!Array.isArray(body.PhoneNumberSet) || body.PhoneNumberSet.some((p) => !/^\+\d{8,15}$/.test(p))) {
      return error('InvalidParameterValue.IncorrectPhoneNumber', 'Incorrect phone number.');
    }
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    sent.push({ headers, body });
    json(res, 200, {
      Response: {
        SendStatusSet: body.PhoneNumberSet.map((p, i) => ({
          SerialNo: `2028:${sent.length}${i}`,
          PhoneNumber: p,
          Fee: 1,
          SessionContext: body.SessionContext ?? '',
          Code: 'Ok',
          Message: 'send success',
          IsoCode: 'CN',
        })),
        RequestId: requestId(),
      },
    });
  });
  return Object.assign(fake, { sent });
}

// --- WeChat official account API -------------------------------------------------------------------------------------

export interface WechatSent {
  token: string;
  body: { touser: string; template_id: string; data: Record<string, { value: string }> };
}

export interface FakeWechat extends Fake {
  sent: WechatSent[];
  tokenCalls: number;
  /** Makes every issued token invalid (40001) or expired (42001) for the next send. */
  invalidateTokens(errcode: 40001 | 42001): void;
  /** Openids that do not follow the account (43004). */
  notFollowing: Set<string>;
}

/**
 * `/cgi-bin/token` (client_credential, appid + secret) and `/cgi-bin/message/template/send?access_token=`.
 * Tokens live `expiresIn` seconds of `now()`; an expired one answers 42001, an unknown or invalidated one 40001.
 */
export async function startFakeWechat(opts: {
  appid: string;
  secret: string;
  templateId: string;
  now: () => Date;
  expiresIn?: number;
}): Promise<FakeWechat> {
  const sent: WechatSent[] = [];
  const tokens = new Map<string, { expiresAt: number; revoked?: 40001 | 42001 }>();
  const notFollowing = new Set<string>();
  const state = { tokenCalls: 0 };
  const expiresIn = opts.expiresIn ?? 7200;
  const fake = await startFake((req, raw, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/cgi-bin/token') {
      state.tokenCalls++;
      if (url.searchParams.get('grant_type') !== 'client_credential') {
        return json(res, 200, { errcode: 40002, errmsg: 'invalid grant_type' });
      }
      if (url.searchParams.get('appid') !== opts.appid)
        return json(res, 200, { errcode: 40013, errmsg: 'invalid appid' });
      if (url.searchParams.get('secret') !== opts.secret) {
        return json(res, 200, { errcode: 40125, errmsg: 'invalid appsecret' });
      }
      const token = `TOKEN_${state.tokenCalls}_${Math.random().toString(36).slice(2)}`;
      tokens.set(token, { expiresAt: opts.now().getTime() + expiresIn * 1000 });
      return json(res, 200, { access_token: token, expires_in: expiresIn });
    }
    if (req.method === 'POST' && url.pathname === '/cgi-bin/message/template/send') {
      const token = url.searchParams.get('access_token') ?? '';
      const t = tokens.get(token);
      if (!t || t.revoked === 40001)
        return json(res, 200, {
          errcode: 40001,
          errmsg: 'invalid credential, access_token is invalid or not latest',
        });
      if (t.revoked === 42001 || t.expiresAt <= opts.now().getTime()) {
        return json(res, 200, { errcode: 42001, errmsg: 'access_token expired' });
      }
      let body: WechatSent['body'];
      try {
        body = JSON.parse(raw) as WechatSent['body'];
      } catch {
        return json(res, 200, { errcode: 47001, errmsg: 'data format error' });
      }
      if (body.template_id !== opts.templateId)
        return json(res, 200, { errcode: 40037, errmsg: 'invalid template_id' });
      if (!/^[A-Za-z0-9_-]{6,64}$/.test(body.touser))
        return json(res, 200, { errcode: 40003, errmsg: 'invalid openid' });
      if (notFollowing.has(body.touser))
        return json(res, 200, { errcode: 43004, errmsg: 'require subscribe' });
      sent.push({ token, body });
      return json(res, 200, { errcode: 0, errmsg: 'ok', msgid: 200228332 + sent.length });
    }
    json(res, 404, { errcode: 40066, errmsg: 'invalid url' });
  });
  const out = Object.assign(fake, {
    sent,
    notFollowing,
    tokenCalls: 0,
    invalidateTokens(errcode: 40001 | 42001) {
      for (const t of tokens.values()) t.revoked = errcode;
    },
  });
  return live(out, 'tokenCalls', () => state.tokenCalls);
}
