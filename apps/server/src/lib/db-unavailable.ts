/**
 * Error codes that say the database cannot be reached or refuses work for now, not that the statement was wrong:
 * the socket's (refused, reset, timed out), PostgreSQL's class 08 (connection exception), 57P01..57P03 (the server
 * is shutting down, crashed, or not yet accepting connections) and 53300 (too many connections).
 */
const CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
/** node-postgres's own errors of a connection that broke or never came, which carry no code. */
const MESSAGES =
  /^(Connection terminated|Connection terminated unexpectedly|Connection terminated due to connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)$/;

/**
 * Whether an error means "the database is down" (a dependency failure: 503 / 10105, and worth trying again once it
 * is back) rather than a fault of the statement. Follows `cause` (Drizzle wraps the driver's error) and the errors
 * of an AggregateError (a connect tried on several addresses).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (CODES.has(code) || code.startsWith('08'))) return true;
  if (err instanceof Error && MESSAGES.test(err.message)) return true;
  if (err instanceof AggregateError && err.errors.some((e) => isDatabaseUnavailable(e, depth + 1)))
    return true;
  return isDatabaseUnavailable((err as { cause?: unknown }).cause, depth + 1);
}
