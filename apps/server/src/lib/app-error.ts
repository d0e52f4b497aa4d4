import { ERROR_CODES, isErrorCode } from '@cellhub/contract/errors';

/**
 * The one error type of the server. Services throw it; the error handler turns it into `{ code, message, details? }`
 * with the HTTP status of the code table unless told otherwise.
 */
export class AppError extends Error {
  readonly code: number;
  readonly httpStatus: number;
  readonly details: unknown;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(code: number, httpStatus?: number, message?: string, details?: unknown) {
    const entry = isErrorCode(code) ? ERROR_CODES[code] : undefined;
    super(message ?? entry?.en ?? 'Error');
    this.name = 'AppError';
    this.code = code;
    this.httpStatus = httpStatus ?? entry?.http ?? 400;
    this.details = details;
    this.headers = {};
  }
}

/** 429 with the seconds to wait, shared by every limiter. */
export class RateLimitError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(10104);
    this.headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

/** Invalid input found by a service rather than the schema (same shape as schema failures). */
export const formError = (field: string, message: string): AppError =>
  new AppError(10113, 400, undefined, [{ field, message }]);
