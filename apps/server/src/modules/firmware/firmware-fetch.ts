/**
 * Fetches a firmware binary from a URL an admin gave, once, into the store. This is a request the server makes on
 * someone's behalf, so it is fenced: http and https only, at most 3 redirects (each checked again), a size limit,
 * one timeout for the whole download, and no loopback, private, link-local or other special address (checked on the
 * address actually connected to, so a DNS name cannot point somewhere else between check and use) unless
 * FIRMWARE_ALLOW_PRIVATE_URLS is set.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import path from 'node:path';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';

const MAX_REDIRECTS = 3;

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Loopback, private, link-local, carrier-grade NAT, documentation, multicast and reserved addresses. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(ip, 'ipv6');
  }
  return true;
}

const urlError = (code: number, message: string, field = 'url') =>
  new AppError(code, 400, message, [{ field, message }]);

class PrivateAddressError extends Error {
  readonly code = 'EPRIVATE';
}

/** dns.lookup that refuses private answers: the check happens on the address the socket will use. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const list = addresses ?? [];
    if (list.length === 0 || list.some((a) => isPrivateAddress(a.address))) {
      return callback(new PrivateAddressError(`${hostname} resolves to a private address`), '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

export interface FetchedFirmware {
  body: IncomingMessage;
  /** From Content-Disposition, else the last segment of the (final) URL's path. */
  filename: string;
}

function filenameOf(res: IncomingMessage, url: URL): string {
  const disposition = String(res.headers['content-disposition'] ?? '');
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disposition);
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
  let name = '';
  try {
    name = star?.[1] ? decodeURIComponent(star[1].trim()) : (plain?.[1]?.trim() ?? '');
  } catch {
    name = plain?.[1]?.trim() ?? '';
  }
  if (!name) {
    try {
      name = decodeURIComponent(path.posix.basename(url.pathname));
    } catch {
      name = path.posix.basename(url.pathname);
    }
  }
  return path.basename(name.replace(/\\/g, '/')) || 'firmware';
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw urlError(10113, 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw urlError(10113, 'only http and https URLs');
  if (url.username || url.password) throw urlError(10113, 'credentials in the URL are not supported');
  return url;
}

function get(url: URL, allowPrivate: boolean, signal: AbortSignal): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) && isPrivateAddress(host)) {
    return Promise.reject(urlError(10113, 'the URL points to a private or local address'));
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, {
      signal,
      headers: { 'user-agent': 'Cellhub firmware import', accept: '*/*' },
      ...(allowPrivate ? {} : { lookup: guardedLookup }),
    });
    req.once('response', resolve);
    req.once('error', reject);
  });
}

/**
 * Opens the download of `raw` and hands its body to `store` within FIRMWARE_FETCH_TIMEOUT_MS. Refusals (400):
 * 10113 for a URL that is not allowed, 40001 when no connection could be made, 40002 for an HTTP error answer, a
 * timeout or a broken download; 50001 when Content-Length already exceeds the limit.
 */
export async function fetchFirmware<T>(
  deps: Pick<Deps, 'config'>,
  raw: string,
  store: (fetched: FetchedFirmware) => Promise<T>,
): Promise<T> {
  const {
    firmwareAllowPrivateUrls: allowPrivate,
    firmwareFetchTimeoutMs: timeout,
    firmwareMaxBytes: max,
  } = deps.config;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  let url = parseUrl(raw);
  try {
    let res: IncomingMessage | undefined;
    for (let hop = 0; ; hop++) {
      try {
        res = await get(url, allowPrivate, controller.signal);
      } catch (err) {
        if (err instanceof AppError) throw err;
        if (controller.signal.aborted) throw urlError(40002, `no answer within ${timeout / 1000} s`);
        if (err instanceof PrivateAddressError) {
          throw urlError(10113, 'the URL points to a private or local address');
        }
        throw urlError(40001, `could not connect: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
      }
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (hop >= MAX_REDIRECTS) throw urlError(40002, 'too many redirects');
        url = parseUrl(new URL(res.headers.location, url).toString());
        continue;
      }
      if (status < 200 || status >= 300) {
        res.resume();
        throw urlError(40002, `the URL answered HTTP ${status}`);
      }
      break;
    }
    const length = Number(res.headers['content-length']);
    if (Number.isFinite(length) && length > max) {
      res.destroy();
      throw new AppError(50001, 413, `The firmware is larger than the limit of ${max} bytes`, {
        max_bytes: max,
      });
    }
    try {
      return await store({ body: res, filename: filenameOf(res, url) });
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (controller.signal.aborted)
        throw urlError(40002, `the download did not finish within ${timeout / 1000} s`);
      throw urlError(40002, `the download broke off: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  } finally {
    clearTimeout(timer);
  }
}
