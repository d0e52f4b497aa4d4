import { DEFAULT_MAX_BYTES, OutboundError, outboundFetch } from '../../../lib/outbound';
import { ProviderError, RateLimitError, malformed } from './errors';
import { DEFAULT_TIMEOUT_MS, type SimAdapterOptions, type SimProviderKind } from './types';

export interface HttpContext {
  provider: SimProviderKind;
  fetch: typeof fetch;
  timeoutMs: number;
  now: () => Date;
}

/** What every remote adapter derives from its options: the base URL (no trailing slash), the clock, the HTTP context. */
export function adapterSetup(
  provider: SimProviderKind,
  options: SimAdapterOptions,
  configBaseUrl: string | undefined,
  defaultBaseUrl: string,
): { base: string; now: () => Date; http: HttpContext } {
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    base: (options.baseUrl ?? (configBaseUrl || defaultBaseUrl)).replace(/\/+$/, ''),
    now,
    http: {
      provider,
      fetch:
        options.fetch ??
        outboundFetch({ allow: options.outboundAllow ?? [], timeoutMs, maxBytes: DEFAULT_MAX_BYTES }),
      timeoutMs,
      now,
    },
  };
}

export interface HttpReply {
  status: number;
  headers: Headers;
  /** Parsed JSON, or null for an empty body (or a non-JSON body on an error status). */
  body: unknown;
}

/** Seconds to wait from a Retry-After header (delta-seconds or HTTP-date); at least 1. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.max(1, Number(trimmed));
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(1, Math.ceil((at - now.getTime()) / 1000));
}

/**
 * One HTTP exchange with an operator, with the failures every adapter treats alike: timeout and network errors,
 * 429 (RateLimitError with the Retry-After the operator sent, else `defaultRetryAfter`), 5xx, and a success
 * reply that is not JSON. Everything else (401, 404, business codes) is the adapter's to interpret. A base URL
 * the outbound client refuses (private or local address, not http(s)) is ProviderError `refused`, not retryable,
 * with the OutboundError as its cause (the test action answers it as 400 / 40004).
 */
export async function requestJson(
  ctx: HttpContext,
  url: URL,
  init: RequestInit,
  defaultRetryAfter = 1,
): Promise<HttpReply> {
  let res: Response;
  try {
    res = await ctx.fetch(url, { ...init, signal: AbortSignal.timeout(ctx.timeoutMs) });
  } catch (err) {
    if (err instanceof OutboundError && (err.kind === 'refused' || err.kind === 'invalid_url')) {
      throw new ProviderError(ctx.provider, 'refused', `base URL refused: ${err.message}`, {
        retryable: false,
        cause: err,
      });
    }
    const name = err instanceof Error ? err.name : '';
    if (
      name === 'TimeoutError' ||
      name === 'AbortError' ||
      (err instanceof OutboundError && err.kind === 'timeout')
    ) {
      throw new ProviderError(ctx.provider, 'timeout', `no answer within ${ctx.timeoutMs} ms`, {
        retryable: true,
      });
    }
    // The URL can carry credentials (OneLink's token call), so only the path goes into the message.
    throw new ProviderError(ctx.provider, 'network', `request to ${url.pathname} failed: ${describe(err)}`, {
      retryable: true,
    });
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw new ProviderError(ctx.provider, 'network', `reading the reply failed: ${describe(err)}`, {
      retryable: true,
      status: res.status,
    });
  }
  if (res.status === 429) {
    const wait = parseRetryAfter(res.headers.get('retry-after'), ctx.now()) ?? defaultRetryAfter;
    throw new RateLimitError(ctx.provider, wait);
  }
  if (res.status >= 500) {
    throw new ProviderError(ctx.provider, `http_${res.status}`, `operator answered HTTP ${res.status}`, {
      retryable: true,
      status: res.status,
    });
  }
  let body: unknown = null;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      if (res.ok) throw malformed(ctx.provider, `not JSON (HTTP ${res.status})`);
      body = null;
    }
  }
  return { status: res.status, headers: res.headers, body };
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}

/** A numeric string or number from an operator reply; "" counts as 0 (OneLink sends it for no traffic). */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const t = value.trim();
  if (t === '') return 0;
  if (!/^-?\d+(\.\d+)?$/.test(t)) return null;
  return Number(t);
}

/**
 * An operator API's access token: reused until a minute before it expires, fetched once for concurrent callers,
 * and forgotten when the API refuses it (the next call fetches a new one). `fetch` returns the token and its
 * lifetime in seconds as the API states it (missing or not positive: an hour).
 */
export class AccessToken {
  private token: { value: string; expiresAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly fetch: () => Promise<{ value: string; ttlS: number | null }>,
    private readonly now: () => Date,
    private readonly marginMs = 60_000,
  ) {}

  get(): Promise<string> {
    if (this.token && this.token.expiresAt - this.marginMs > this.now().getTime()) {
      return Promise.resolve(this.token.value);
    }
    this.pending ??= this.fetch()
      .then(({ value, ttlS }) => {
        const seconds = ttlS && ttlS > 0 ? ttlS : 3600;
        this.token = { value, expiresAt: this.now().getTime() + seconds * 1000 };
        return value;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  forget(): void {
    this.token = null;
  }
}
