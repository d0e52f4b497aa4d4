/**
 * Fetches a firmware binary from a URL an admin gave, once, into the store, through the outbound client
 * (lib/outbound.ts): http and https only, at most 3 redirects (each checked again), one timeout for the whole
 * download, and no loopback, private, link-local or other special address (checked on the address actually
 * connected to) unless OUTBOUND_ALLOW names it.
 */
import type { Readable } from 'node:stream';
import path from 'node:path';
import { AppError } from '../../lib/app-error';
import type { Deps } from '../../lib/deps';
import { openOutbound, OutboundError, type OutboundResponse } from '../../lib/outbound';

export interface FetchedFirmware {
  body: Readable;
  /** From Content-Disposition, else the last segment of the (final) URL's path. */
  filename: string;
}

function filenameOf(res: OutboundResponse): string {
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
      name = decodeURIComponent(path.posix.basename(res.url.pathname));
    } catch {
      name = path.posix.basename(res.url.pathname);
    }
  }
  return path.basename(name.replace(/\\/g, '/')) || 'firmware';
}

const urlError = (code: number, status: number, message: string) =>
  new AppError(code, status, undefined, [{ field: 'url', message }]);

/**
 * Opens the download of `raw` and hands its body to `store` within FIRMWARE_FETCH_TIMEOUT_MS. Refusals: 400 10113
 * for a URL that is not valid, 400 40004 for an address that is not allowed, 502 40001 when no connection could be
 * made, 502 40002 for an HTTP error answer, too many redirects, a timeout or a broken download; 413 50001 when
 * Content-Length already exceeds the limit (the store counts the rest).
 */
export async function fetchFirmware<T>(
  deps: Pick<Deps, 'config'>,
  raw: string,
  store: (fetched: FetchedFirmware) => Promise<T>,
): Promise<T> {
  const { firmwareFetchTimeoutMs: timeout, firmwareMaxBytes: max, outboundAllow } = deps.config;
  let res: OutboundResponse;
  try {
    res = await openOutbound({ allow: outboundAllow, timeoutMs: timeout, maxBytes: Infinity }, raw, {
      headers: { 'user-agent': 'Cellhub firmware import' },
    });
  } catch (err) {
    if (err instanceof OutboundError) throw err.toAppError('url');
    throw err;
  }
  const body = res.body as unknown as Readable;
  if (res.status < 200 || res.status >= 300) {
    body.destroy();
    throw urlError(40002, 502, `the URL answered HTTP ${res.status}`);
  }
  const length = Number(res.headers['content-length']);
  if (Number.isFinite(length) && length > max) {
    body.destroy();
    throw new AppError(50001, 413, `The firmware is larger than the limit of ${max} bytes`, {
      max_bytes: max,
    });
  }
  try {
    return await store({ body, filename: filenameOf(res) });
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (err instanceof OutboundError && err.kind === 'timeout') {
      throw urlError(40002, 502, `the download did not finish within ${timeout / 1000} s`);
    }
    throw urlError(40002, 502, `the download broke off: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  } finally {
    body.destroy();
  }
}
