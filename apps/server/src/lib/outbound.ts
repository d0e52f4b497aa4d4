/**
 * The one HTTP client for URLs someone typed (SIM provider base URLs, firmware import, notification endpoints,
 * and the forwarding, webhooks and applications that come next). Such a URL is a request the server makes on
 * someone's behalf from inside its own network, so every call is fenced (docs/outbound.md):
 * - http and https only, no credentials in the URL;
 * - the address connected to is checked: a literal IP in the URL before the request, a name inside the socket's
 *   lookup, so the address checked is the address the socket uses (a DNS answer that changes after a check, or
 *   lists a public and a private address, cannot slip through);
 * - loopback, private, link-local, carrier-grade NAT, unique local, multicast, broadcast, documentation and other
 *   reserved addresses are refused, also inside IPv4-mapped, -compatible, NAT64 and 6to4 IPv6 forms; numeric host
 *   forms (2130706433, 0x7f.1, 127.1) are normalised by WHATWG URL before the check;
 * - redirects are followed by hand (each hop checked again) up to a limit; one deadline covers connecting, every
 *   hop and reading the body; the body has a size limit;
 * - OUTBOUND_ALLOW (config `outboundAllow`) names the on-premise hosts an admin wants reachable anyway.
 * A refusal happens before any packet is sent, so an open and a closed internal port get the same answer.
 * `connectOutbound` applies the same fence to a TCP connection for protocols other than HTTP (SMTP).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { connect, isIP, type LookupFunction, type Socket } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import { AppError } from './app-error';

/** Name resolution: every address of a name. Tests inject one; the default is the system resolver. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface OutboundPolicy {
  /** OUTBOUND_ALLOW entries (`host`, `host:port`, an IP, `IP:port`, `[IPv6]:port`, a CIDR): reachable anyway. */
  allow?: readonly string[];
  /** One deadline for the whole exchange: connecting, every redirect, reading the body. */
  timeoutMs: number;
  /** Largest response body accepted (after which the exchange fails); `Infinity` when the caller counts itself. */
  maxBytes: number;
  /** Redirects followed (each checked again); 0 hands a 3xx to the caller. Default 3. */
  maxRedirects?: number;
  /** Tests only: a resolver that answers what the test needs (no DNS). */
  resolve?: Resolver;
  /** Kept-alive connections to reuse (OutboundPool), made for this policy's allow list; default: a socket per call. */
  pool?: OutboundPool;
}

/** Names an allow list: a pool serves only the list it was made for. */
export const allowKey = (allow: readonly string[] | undefined): string => JSON.stringify(allow ?? []);

/**
 * Kept-alive connections for a caller that sends many requests under one policy (forwarding deliveries: one
 * connection per request cost more than the request). A socket is opened through the same guarded lookup as any
 * request, so it connects only to an address that passed the fence, and it is reused only by requests of its own
 * pool, whose allow list it was checked under (openOutbound refuses a pool made for another list). A pooled socket
 * keeps the address it was checked with: a DNS answer changing later cannot move it.
 */
export class OutboundPool {
  readonly key: string;
  readonly http: http.Agent;
  readonly https: https.Agent;

  constructor(allow: readonly string[] | undefined, options: { maxSockets?: number } = {}) {
    this.key = allowKey(allow);
    const agent = {
      keepAlive: true,
      maxSockets: options.maxSockets ?? 64,
      maxFreeSockets: 16,
      timeout: 30_000,
    };
    this.http = new http.Agent(agent);
    this.https = new https.Agent(agent);
  }

  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

/** Answers sent on the user's behalf are bounded by default to what an API reply can reasonably be. */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;

export type OutboundFailure =
  /** The URL is not one the client takes (syntax, scheme, credentials). */
  | 'invalid_url'
  /** The target address is not allowed. */
  | 'refused'
  /** No connection (name unknown, connection refused or reset before an answer). */
  | 'connect'
  | 'timeout'
  | 'too_large'
  | 'redirects'
  /** The answer broke off or was not HTTP. */
  | 'broken';

/** Why an outbound call did not produce an answer. `toAppError` gives the API's answer for it. */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }

  /**
   * 400 10113 for a URL that is not valid, 400 40004 for a refused address, 502 40001 when no connection could be
   * made, 502 40002 for the rest; `details` names the field the URL came from.
   */
  toAppError(field = 'url'): AppError {
    const details = [{ field, message: this.message }];
    switch (this.kind) {
      case 'invalid_url':
        return new AppError(10113, 400, undefined, details);
      case 'refused':
        return new AppError(40004, 400, undefined, details);
      case 'connect':
        return new AppError(40001, 502, undefined, details);
      default:
        return new AppError(40002, 502, undefined, details);
    }
  }
}

/** The refusal in `err` or its causes, as the API's 400 40004, or undefined when `err` is another failure. */
export function outboundRefusal(err: unknown, field = 'url'): AppError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof OutboundError && e.kind === 'refused') return e.toAppError(field);
  }
  return undefined;
}

// One text for every refused address, whatever the reason, so answers tell nothing about the inside network.
const REFUSED = 'the URL points to a private or local address';
const refused = () => new OutboundError('refused', REFUSED);
const REFUSED_HOST = 'the host is a private or local address';
const refusedHost = () => new OutboundError('refused', REFUSED_HOST);

// ---------------------------------------------------------------------------------------------------------------
// Addresses

function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

function parseIPv6(text: string): bigint | null {
  if (text.includes('%') || isIP(text) !== 6) return null;
  let head = text;
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const n = parseIPv4(v4[1]);
    if (n === null) return null;
    tail = [n >>> 16, n & 0xffff];
    head = text.slice(0, -v4[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const groupsOf = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  let groups: number[];
  const gap = head.indexOf('::');
  if (gap >= 0) {
    const left = groupsOf(head.slice(0, gap));
    const right = [...groupsOf(head.slice(gap + 2)), ...tail];
    groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  } else {
    groups = [...groupsOf(head), ...tail];
  }
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

interface Net {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

const bits = (family: 4 | 6) => (family === 4 ? 32 : 128);

function inNet(family: 4 | 6, value: bigint, net: Net): boolean {
  if (family !== net.family) return false;
  const shift = BigInt(bits(family) - net.prefix);
  return value >> shift === net.base >> shift;
}

function net(text: string): Net {
  const [addr = '', prefix = ''] = text.split('/');
  const v4 = parseIPv4(addr);
  if (v4 !== null) return { family: 4, base: BigInt(v4), prefix: Number(prefix) };
  const v6 = parseIPv6(addr);
  if (v6 === null) throw new Error(`bad network ${text}`);
  return { family: 6, base: v6, prefix: Number(prefix) };
}

// IANA special-purpose registries; what is left is the public internet.
const BLOCKED_V4 = [
  '0.0.0.0/8', // "this network"; 0.0.0.0 reaches the local host
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, cloud metadata services
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relay anycast
  '192.168.0.0/16',
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and 255.255.255.255 broadcast
].map(net);

const GLOBAL_V6 = net('2000::/3');
const BLOCKED_V6 = [
  '2001::/23', // IETF protocol assignments: Teredo, benchmarking, ORCHID
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation
].map(net);
// IPv6 forms that carry an IPv4 address: judged by that address.
const MAPPED = net('::ffff:0:0/96');
const TRANSLATED = net('::ffff:0:0:0/96'); // SIIT
const NAT64 = net('64:ff9b::/96');
const SIX_TO_FOUR = net('2002::/16');

function publicV4(value: bigint): boolean {
  return !BLOCKED_V4.some((n) => inNet(4, value, n));
}

/**
 * Whether `address` (an IP in any form Node or WHATWG URL writes, brackets allowed) is on the public internet.
 * Anything it cannot read is not.
 */
export function isPublicAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const v4 = parseIPv4(ip);
  if (v4 !== null) return publicV4(BigInt(v4));
  const v6 = parseIPv6(ip);
  if (v6 === null) return false;
  const low32 = v6 & 0xffffffffn;
  if (inNet(6, v6, MAPPED) || inNet(6, v6, TRANSLATED) || inNet(6, v6, NAT64)) return publicV4(low32);
  if (inNet(6, v6, SIX_TO_FOUR)) return publicV4((v6 >> 80n) & 0xffffffffn);
  // Everything outside global unicast (loopback, IPv4-compatible ::/96, unique local fc00::/7, link-local
  // fe80::/10, site-local, multicast ff00::/8, NAT64 local-use 64:ff9b:1::/48, discard 100::/64) is refused.
  if (!inNet(6, v6, GLOBAL_V6)) return false;
  return !BLOCKED_V6.some((n) => inNet(6, v6, n));
}

// ---------------------------------------------------------------------------------------------------------------
// Allow-list

type AllowRule =
  | { kind: 'name'; host: string; port: number | null }
  | { kind: 'ip'; family: 4 | 6; value: bigint; port: number | null }
  | { kind: 'net'; net: Net };

function ipValue(text: string): { family: 4 | 6; value: bigint } | null {
  const v4 = parseIPv4(text);
  if (v4 !== null) return { family: 4, value: BigInt(v4) };
  const v6 = parseIPv6(text);
  if (v6 !== null) return { family: 6, value: v6 };
  return null;
}

function parsePort(text: string | undefined, entry: string): number | null {
  if (text === undefined) return null;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${entry}: bad port`);
  return port;
}

function parseRule(raw: string): AllowRule {
  const entry = raw.trim().toLowerCase();
  if (entry.includes('/')) {
    const [addr = '', prefix = ''] = entry.split('/');
    const ip = ipValue(addr);
    const length = Number(prefix);
    if (!ip || !/^\d{1,3}$/.test(prefix) || length > bits(ip.family)) {
      throw new Error(`${raw}: not a CIDR (e.g. 10.20.0.0/16)`);
    }
    return { kind: 'net', net: { family: ip.family, base: ip.value, prefix: length } };
  }
  let host: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    host = bracketed[1] ?? '';
    portText = bracketed[2];
  } else if (isIP(entry) === 6) {
    host = entry;
  } else {
    const m = /^([^:]+)(?::(\d+))?$/.exec(entry);
    if (!m) throw new Error(`${raw}: not host[:port]`);
    host = m[1] ?? '';
    portText = m[2];
  }
  const port = parsePort(portText, raw);
  // The same normalisation as a URL's host, so `0x7f.1` here means what it means there.
  let hostname: string;
  try {
    hostname = new URL(`http://${isIP(host) === 6 ? `[${host}]` : host}/`).hostname;
  } catch {
    throw new Error(`${raw}: not a host name or address`);
  }
  const ip = ipValue(hostname.replace(/^\[|\]$/g, ''));
  if (ip) return { kind: 'ip', ...ip, port };
  return { kind: 'name', host: hostname, port };
}

/** Reads OUTBOUND_ALLOW entries; throws an Error naming the first bad entry. */
export function parseAllowList(entries: readonly string[]): AllowRule[] {
  return entries.filter((e) => e.trim() !== '').map(parseRule);
}

function allowsName(rules: AllowRule[], host: string, port: number): boolean {
  return rules.some((r) => r.kind === 'name' && r.host === host && (r.port === null || r.port === port));
}

function allowsAddress(rules: AllowRule[], address: string, port: number): boolean {
  const ip = ipValue(address.replace(/^\[|\]$/g, ''));
  if (!ip) return false;
  return rules.some((r) =>
    r.kind === 'net'
      ? inNet(ip.family, ip.value, r.net)
      : r.kind === 'ip' &&
        r.family === ip.family &&
        r.value === ip.value &&
        (r.port === null || r.port === port),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Targets

interface Target {
  url: URL;
  /** Without brackets. */
  host: string;
  port: number;
  /** Null when the host is a literal IP (already judged); always true for a name on the allow-list. */
  judge: ((address: string) => boolean) | null;
}

function parseTarget(raw: string | URL): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_url', 'only http and https URLs');
  }
  if (url.username || url.password) {
    throw new OutboundError('invalid_url', 'credentials in the URL are not supported');
  }
  return url;
}

/** The static part of the check: syntax, scheme, and the host when it is a literal address. */
function judgeUrl(url: URL, rules: AllowRule[]): Target {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { url, ...judgeHost(host, port, rules, refused) };
}

/**
 * A literal address is judged now (refused unless public or allowed); a name gets the judge its resolved
 * addresses must pass, which always passes for a name the allow-list names.
 */
function judgeHost(host: string, port: number, rules: AllowRule[], refusal: () => OutboundError) {
  if (isIP(host)) {
    if (!isPublicAddress(host) && !allowsAddress(rules, host, port)) throw refusal();
    return { host, port, judge: null };
  }
  if (allowsName(rules, host, port)) return { host, port, judge: () => true };
  return {
    host,
    port,
    judge: (address: string) => isPublicAddress(address) || allowsAddress(rules, address, port),
  };
}

/**
 * Checks a URL someone typed without fetching it: syntax, scheme, and every address its name resolves to now.
 * For an early, clear answer when a URL is saved; the fetch checks again at connect time (names can change).
 * Throws OutboundError.
 */
export async function checkTarget(raw: string | URL, policy: Pick<OutboundPolicy, 'allow' | 'resolve'>) {
  const target = judgeUrl(parseTarget(raw), parseAllowList(policy.allow ?? []));
  if (!target.judge) return target.url;
  let addresses: { address: string }[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(target.host);
  } catch (err) {
    throw new OutboundError('connect', `cannot resolve ${target.host}`, { cause: err });
  }
  if (addresses.length === 0) throw new OutboundError('connect', `cannot resolve ${target.host}`);
  if (!addresses.every((a) => target.judge!(a.address))) throw refused();
  return target.url;
}

const systemResolve: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses: LookupAddress[]) =>
      err ? reject(err) : resolve(addresses),
    );
  });

/**
 * The socket's lookup: resolves, refuses when any answer is not allowed (so a name listing a public and a private
 * address cannot be steered to the private one), and hands the checked addresses to the socket. `onRefused`
 * records the refusal, whatever the socket makes of the error.
 */
function guardedLookup(
  resolve: Resolver,
  judge: (address: string) => boolean,
  onRefused: () => void,
): LookupFunction {
  return (hostname, options, callback) => {
    const answer = callback as unknown as (
      err: Error | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    resolve(hostname).then(
      (all) => {
        if (!all.every((a) => judge(a.address))) {
          onRefused();
          return answer(refused(), '', 0);
        }
        const list = options.family ? all.filter((a) => a.family === options.family) : all;
        if (list.length === 0) {
          const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
          return answer(err, '', 0);
        }
        if (options.all) return answer(null, list);
        answer(null, list[0]!.address, list[0]!.family);
      },
      (err: Error) => answer(err, '', 0),
    );
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** The caller's own abort (besides the policy's deadline). */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  /** The URL that answered (after redirects). */
  url: URL;
  /** The body, cut off with OutboundError('too_large') past maxBytes and ('timeout') at the deadline. */
  body: NodeJS.ReadableStream & AsyncIterable<Buffer>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ?? e?.message ?? 'error';
}

function send(
  target: Target,
  request: OutboundRequest,
  resolve: Resolver,
  signal: AbortSignal,
  pool: OutboundPool | undefined,
): Promise<IncomingMessage> {
  let refusedAtLookup = false;
  const secure = target.url.protocol === 'https:';
  const client = secure ? https : http;
  return new Promise((done, fail) => {
    const req = client.request(target.url, {
      method: request.method ?? 'GET',
      headers: request.headers,
      signal,
      // Without a pool, a socket of its own per request: a pooled socket of a call allowed under another
      // allow-list (another app in the same process) must never be reused without this call's check.
      agent: pool ? (secure ? pool.https : pool.http) : false,
      ...(target.judge
        ? {
            lookup: guardedLookup(resolve, target.judge, () => {
              refusedAtLookup = true;
            }),
          }
        : {}),
    });
    req.once('response', done);
    req.once('error', (err) => {
      if (refusedAtLookup) fail(refused());
      else fail(err);
    });
    req.end(request.body);
  });
}

/** Counts the body against the limit. */
function limited(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > max)
        return callback(new OutboundError('too_large', `the answer is larger than ${max} bytes`));
      callback(null, chunk);
    },
  });
}

function headersWithoutCredentials(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (!['authorization', 'cookie', 'proxy-authorization'].includes(k.toLowerCase())) out[k] = v;
  }
  return out;
}

/**
 * Sends one request to a URL someone typed, following redirects (each checked), and resolves with the answer's
 * status, headers and body stream, whatever the status. Throws OutboundError; the caller's own abort rejects
 * with its reason.
 */
export async function openOutbound(
  policy: OutboundPolicy,
  raw: string | URL,
  request: OutboundRequest = {},
): Promise<OutboundResponse> {
  const rules = parseAllowList(policy.allow ?? []);
  if (policy.pool && policy.pool.key !== allowKey(policy.allow))
    throw new Error('outbound: a connection pool made for another allow list');
  const resolve = policy.resolve ?? systemResolve;
  const maxRedirects = policy.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const deadline = AbortSignal.timeout(policy.timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
  const timedOut = () => new OutboundError('timeout', `no answer within ${policy.timeoutMs / 1000} s`);

  let url = parseTarget(raw);
  let current: OutboundRequest = {
    ...request,
    headers: { 'user-agent': 'Cellhub', accept: '*/*', ...request.headers },
  };
  for (let hop = 0; ; hop++) {
    const target = judgeUrl(url, rules);
    let res: IncomingMessage;
    try {
      res = await send(target, current, resolve, signal, policy.pool);
    } catch (err) {
      if (err instanceof OutboundError) throw err;
      if (request.signal?.aborted) throw request.signal.reason;
      if (deadline.aborted) throw timedOut();
      throw new OutboundError('connect', `could not connect: ${describe(err)}`, { cause: err });
    }
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && location && maxRedirects > 0) {
      res.resume();
      if (hop >= maxRedirects) throw new OutboundError('redirects', 'too many redirects');
      const next = parseTarget(new URL(location, url));
      const keepBody = status === 307 || status === 308;
      const sameOrigin = next.origin === url.origin;
      current = {
        ...current,
        method: keepBody ? current.method : current.method === 'HEAD' ? 'HEAD' : 'GET',
        body: keepBody ? current.body : undefined,
        headers: sameOrigin ? current.headers : headersWithoutCredentials(current.headers),
      };
      if (!keepBody && current.headers) {
        current.headers = Object.fromEntries(
          Object.entries(current.headers).filter(([k]) => !/^content-/i.test(k)),
        );
      }
      url = next;
      continue;
    }
    const body = Number.isFinite(policy.maxBytes) ? res.pipe(limited(policy.maxBytes)) : res;
    if (body !== res) {
      res.once('error', (err) => body.destroy(err));
      body.once('close', () => res.destroy());
    }
    // The deadline also covers reading the body.
    const onAbort = () => {
      const reason = request.signal?.aborted ? request.signal.reason : timedOut();
      body.destroy(reason instanceof Error ? reason : timedOut());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    body.once('close', () => signal.removeEventListener('abort', onAbort));
    return {
      status,
      headers: res.headers,
      rawHeaders: res.rawHeaders,
      url,
      body: body as NodeJS.ReadableStream & AsyncIterable<Buffer>,
    };
  }
}

/** Reads the whole body (within the policy's limits). */
async function readAll(response: OutboundResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response.body) chunks.push(chunk);
  } catch (err) {
    if (err instanceof OutboundError) throw err;
    throw new OutboundError('broken', `the answer broke off: ${describe(err)}`, { cause: err });
  }
  return Buffer.concat(chunks);
}

async function requestOf(input: string | URL | Request, init: RequestInit = {}) {
  const request = input instanceof Request ? input : undefined;
  const headers = new Headers(init.headers ?? request?.headers);
  let body: Buffer | string | undefined;
  const sent = init.body ?? (request?.body ? Buffer.from(await request.arrayBuffer()) : undefined);
  if (typeof sent === 'string') {
    body = sent;
    if (!headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
  } else if (sent instanceof URLSearchParams) {
    body = sent.toString();
    if (!headers.has('content-type')) {
      headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    }
  } else if (sent instanceof ArrayBuffer || ArrayBuffer.isView(sent)) {
    body =
      sent instanceof ArrayBuffer
        ? Buffer.from(sent)
        : Buffer.from(sent.buffer, sent.byteOffset, sent.byteLength);
  } else if (sent !== undefined && sent !== null) {
    throw new TypeError('outbound fetch: body must be a string, URLSearchParams or bytes');
  }
  if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
  return {
    url: request ? request.url : input instanceof URL ? input : String(input),
    method: init.method ?? request?.method ?? 'GET',
    headers: Object.fromEntries(headers.entries()),
    body,
    signal: init.signal ?? request?.signal ?? undefined,
  };
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for adapters written against it: the same fence and limits, the body read in full before the
 * Response is returned. Rejects with OutboundError (or the caller's abort reason); never follows a redirect past
 * the policy. Bodies are sent as given: no compression is asked for.
 */
export function outboundFetch(policy: OutboundPolicy): typeof fetch {
  return async (input, init) => {
    const req = await requestOf(input, init ?? undefined);
    const res = await openOutbound(policy, req.url, req);
    const bytes = await readAll(res);
    if (res.status < 200 || res.status > 599) {
      throw new OutboundError('broken', `the answer is not HTTP (status ${res.status})`);
    }
    const headers = new Headers();
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
      headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    const response = new Response(NULL_BODY.has(res.status) ? null : bytes, { status: res.status, headers });
    Object.defineProperty(response, 'url', { value: res.url.toString() });
    return response;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// TCP connections: hosts someone typed for protocols other than HTTP (the SMTP server of the email channel)

export interface SocketPolicy {
  /** OUTBOUND_ALLOW entries, read as for HTTP: `host:port` and `IP:port` entries name the TCP port. */
  allow?: readonly string[];
  /** Deadline for resolving and connecting. */
  timeoutMs: number;
  /** Tests only: a resolver that answers what the test needs (no DNS). */
  resolve?: Resolver;
}

export interface OutboundSocket {
  /** Connected to an address that passed the check. */
  socket: Socket;
  /** The host, normalised like a URL's host (`0x7f.1` becomes `127.0.0.1`), without brackets. */
  host: string;
  /** The name a TLS upgrade presents (SNI) and verifies the certificate against; undefined for an address. */
  servername: string | undefined;
}

/** A host someone typed (a name or an address, no port or anything else), normalised like a URL's host. */
function parseHost(raw: string): string {
  const text = raw.trim();
  const v6 = isIP(text) === 6;
  if (text === '' || (!v6 && /[/\\?#@:\s]/.test(text))) {
    throw new OutboundError('invalid_url', 'not a host name or address');
  }
  let url: URL;
  try {
    url = new URL(`http://${v6 ? `[${text}]` : text}/`);
  } catch {
    throw new OutboundError('invalid_url', 'not a host name or address');
  }
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Opens a TCP connection to `host`:`port` under the same fence as openOutbound: a literal address is judged before
 * anything is sent, a name inside the socket's lookup, so the socket connects only to addresses that passed (a
 * DNS answer that changes after an earlier check, or lists a public and a private address, is refused). The caller
 * speaks its protocol on the socket; for TLS it passes `servername`, so the name is kept for SNI and the
 * certificate check while the connection goes to the checked address. Rejects with OutboundError: `invalid_url`
 * (not a host), `refused` (one text for every refused address, before any packet), `connect`, `timeout`.
 */
export function connectOutbound(
  policy: SocketPolicy,
  rawHost: string,
  port: number,
): Promise<OutboundSocket> {
  return new Promise((resolve, reject) => {
    const host = parseHost(rawHost);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new OutboundError('invalid_url', 'not a TCP port');
    }
    const target = judgeHost(host, port, parseAllowList(policy.allow ?? []), refusedHost);
    let refusedAtLookup = false;
    const socket = connect({
      host,
      port,
      ...(target.judge
        ? {
            lookup: guardedLookup(policy.resolve ?? systemResolve, target.judge, () => {
              refusedAtLookup = true;
            }),
          }
        : {}),
    });
    const fail = (err: OutboundError) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new OutboundError('timeout', `no connection within ${policy.timeoutMs / 1000} s`)),
      policy.timeoutMs,
    );
    const onError = (err: Error) =>
      fail(
        refusedAtLookup
          ? refusedHost()
          : new OutboundError('connect', `could not connect: ${describe(err)}`, { cause: err }),
      );
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve({ socket, host, servername: isIP(host) ? undefined : host });
    });
  });
}
