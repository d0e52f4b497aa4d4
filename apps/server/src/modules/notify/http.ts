import { DeliveryError } from './delivery-error';

export interface HttpAnswer {
  status: number;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * One provider call with a time limit. Network failures and timeouts become retryable DeliveryErrors; any HTTP
 * answer is returned for the adapter to judge (each provider says "failed" differently).
 */
export async function callProvider(url: string, init: RequestInit, timeoutMs: number): Promise<HttpAnswer> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError') throw new DeliveryError(`no answer within ${timeoutMs} ms`);
    throw new DeliveryError(`cannot reach ${new URL(url).host}: ${e.cause?.code ?? e.message}`);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw new DeliveryError(`answer cut off: ${(err as Error).message}`);
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
