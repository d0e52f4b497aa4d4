import type { Config } from '../../config';
import { DEFAULT_MAX_BYTES, OutboundError, outboundFetch } from '../../lib/outbound';
import { DeliveryError } from './delivery-error';

export interface HttpAnswer {
  status: number;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** What bounds a provider call: its time limit and the hosts OUTBOUND_ALLOW opens. */
export interface CallLimits {
  timeoutMs: number;
  allow: readonly string[];
}

export const callLimits = (config: Pick<Config, 'notify' | 'outboundAllow'>): CallLimits => ({
  timeoutMs: config.notify.sendTimeoutMs,
  allow: config.outboundAllow,
});

/**
 * One provider call through the outbound client (lib/outbound.ts): the endpoints are configurable
 * (NOTIFY_*_URL, WECHAT_API_URL), so a private or local one is refused unless OUTBOUND_ALLOW names it, and never
 * followed through a redirect. Network failures and timeouts become retryable DeliveryErrors, a refused endpoint
 * a permanent one; any HTTP answer is returned for the adapter to judge (each provider says "failed" differently).
 */
export async function callProvider(url: string, init: RequestInit, limits: CallLimits): Promise<HttpAnswer> {
  const fetchOut = outboundFetch({
    allow: limits.allow,
    timeoutMs: limits.timeoutMs,
    maxBytes: DEFAULT_MAX_BYTES,
    maxRedirects: 0,
  });
  let res: Response;
  try {
    res = await fetchOut(url, init);
  } catch (err) {
    if (err instanceof OutboundError) {
      if (err.kind === 'refused' || err.kind === 'invalid_url') {
        throw new DeliveryError(`endpoint refused: ${err.message}`, false);
      }
      if (err.kind === 'timeout') throw new DeliveryError(`no answer within ${limits.timeoutMs} ms`);
      if (err.kind === 'connect')
        throw new DeliveryError(`cannot reach ${new URL(url).host}: ${err.message}`);
      throw new DeliveryError(`answer cut off: ${err.message}`);
    }
    throw new DeliveryError(`cannot reach ${new URL(url).host}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (res.status >= 300 && res.status < 400) {
    throw new DeliveryError(`the endpoint redirected (HTTP ${res.status}); redirects are not followed`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** A short, single-line excerpt of a provider's answer for last_error. */
export const excerpt = (text: string, max = 200): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
};
