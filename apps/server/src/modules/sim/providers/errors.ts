import type { SimProviderKind } from './types';

/**
 * The four ways an operator call fails, so the sync job can tell what to retry:
 * - AuthError: the stored credentials are refused (after one token re-fetch). Retrying will not help; an admin
 *   has to fix the provider.
 * - RateLimitError: the operator asks us to slow down; retry after `retryAfterSeconds`.
 * - ProviderError: the operator failed (5xx, timeout, network, malformed reply: `retryable`) or refused the
 *   request for a business reason (an operator error code, a query outside its window: not `retryable`).
 * - NotFoundError: the operator does not know this card (or it belongs to another customer account).
 */
export abstract class SimProviderError extends Error {
  abstract readonly retryable: boolean;
  readonly provider: SimProviderKind;

  constructor(provider: SimProviderKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.provider = provider;
    this.name = new.target.name;
  }
}

export class AuthError extends SimProviderError {
  readonly retryable = false;
}

export class RateLimitError extends SimProviderError {
  readonly retryable = true;
  readonly retryAfterSeconds: number;

  constructor(provider: SimProviderKind, retryAfterSeconds: number, message = 'operator rate limit reached') {
    super(provider, message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class ProviderError extends SimProviderError {
  readonly retryable: boolean;
  /** HTTP status of the operator's reply, when there was one. */
  readonly status: number | null;
  /**
   * The operator's own error code (OneLink `status` such as "12010", 1NCE `errorCode`), or one of ours:
   * `timeout`, `network`, `malformed`, `http_<status>`, `unsupported`, `out_of_range`, `transition`, `refused`
   * (the base URL points where the server may not connect).
   */
  readonly code: string;

  constructor(
    provider: SimProviderKind,
    code: string,
    message: string,
    options: { retryable: boolean; status?: number | null; cause?: unknown },
  ) {
    super(provider, message, { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable;
    this.status = options.status ?? null;
  }
}

export class NotFoundError extends SimProviderError {
  readonly retryable = false;
  readonly iccid: string;

  constructor(
    provider: SimProviderKind,
    iccid: string,
    message = `card ${iccid} is not known to the operator`,
  ) {
    super(provider, message);
    this.iccid = iccid;
  }
}

export const malformed = (provider: SimProviderKind, what: string): ProviderError =>
  new ProviderError(provider, 'malformed', `malformed reply from the operator: ${what}`, { retryable: true });

export const unsupported = (provider: SimProviderKind, what: string): ProviderError =>
  new ProviderError(provider, 'unsupported', `${what} is not offered by this provider`, { retryable: false });
