/**
 * A failed call: the server's `{code, message, details?}` answer (CONTRACT.md) with the HTTP status. The open API's
 * own codes are 10220-10228 (README.md, docs/open-api.md); any other code of the contract's table may come too
 * (10113 invalid input, 20401 device offline, ...).
 */
export class CellhubError extends Error {
  override readonly name = 'CellhubError';

  constructor(
    /** The code of the contract's error table; 0 when the answer had no Cellhub error body (a proxy's page). */
    readonly code: number,
    message: string,
    /** The HTTP status. */
    readonly status: number,
    /** What the server added, e.g. the invalid fields of a 10113. */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Whether a value is a Cellhub failure body. */
export function isErrorBody(body: unknown): body is { code: number; message: string; details?: unknown } {
  if (body === null || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return !('status' in b) && typeof b.code === 'number' && typeof b.message === 'string';
}

/** The error for a failed answer (its body already parsed as JSON when it was JSON). */
export function errorFromAnswer(status: number, statusText: string, body: unknown): CellhubError {
  if (isErrorBody(body)) return new CellhubError(body.code, body.message, status, body.details);
  const text = typeof body === 'string' && body.length > 0 ? body.slice(0, 200) : statusText;
  return new CellhubError(0, `HTTP ${status}${text ? `: ${text}` : ''}`, status);
}
