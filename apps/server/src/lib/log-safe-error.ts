import type { FastifyServerOptions } from 'fastify';

/**
 * The `err` serializer of the server's logger. A failed statement's error carries what the caller sent: Drizzle's
 * DrizzleQueryError puts the statement parameters in its message, stack and `params`, and the driver's error adds
 * `detail` ("Key (username)=(...) already exists") and, on PGlite, the query and its parameters. Passwords, tokens
 * and personal data would then sit in the logs, so those fields are dropped and the statement text is kept only up
 * to its parameter list (Drizzle sends values as `$n` placeholders, never inline).
 */

/** Fields of database errors that hold values of the statement. */
const VALUE_FIELDS = new Set(['params', 'parameters', 'detail', 'where', 'internalQuery', 'values', 'query']);

const MAX_DEPTH = 5;

/** Drizzle's message is `Failed query: <sql>\nparams: <values>`; the values go. */
function withoutParams(message: string): string {
  const at = message.indexOf('\nparams:');
  return at === -1 ? message : message.slice(0, at);
}

/**
 * The database's own message quotes the offending value in some errors (`invalid input syntax for type integer:
 * "..."`); its reason and SQLSTATE stay, the quoted value goes.
 */
function withoutQuotedValue(err: Error, message: string): string {
  const fromDatabase = 'severity' in err && 'code' in err;
  return fromDatabase ? message.replace(/: "[\s\S]*"$/, ': "[value]"') : message;
}

export interface SafeError {
  type: string;
  message: string;
  stack: string;
  [key: string]: unknown;
}

export function safeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return err;
  const message = withoutQuotedValue(err, withoutParams(err.message));
  // The stack starts with the message; a replacer function, so `$` in the message is taken literally.
  const stack = err.stack ?? '';
  const out: SafeError = {
    type: err.constructor?.name ?? err.name,
    message,
    stack: stack.includes(err.message) ? stack.replace(err.message, () => message) : stack,
  };
  for (const [key, value] of Object.entries(err)) {
    if (VALUE_FIELDS.has(key) || key === 'cause' || key === 'stack' || key === 'message') continue;
    out[key] =
      value instanceof Error ? (depth < MAX_DEPTH ? safeError(value, depth + 1) : value.message) : value;
  }
  // Drizzle's own `query` is the statement text with placeholders only: useful, and free of values.
  if ('query' in err && typeof err.query === 'string' && 'params' in err) out.query = err.query;
  if (err.cause !== undefined && depth < MAX_DEPTH) out.cause = safeError(err.cause, depth + 1);
  return out;
}

const errSerializer = (err: Error): SafeError => safeError(err) as SafeError;

type LoggerOption = FastifyServerOptions['logger'];

/** Merges the serializer into a Fastify `logger` option (an options object or `true`); `false` stays off. */
export function withSafeErrorLogs(logger: LoggerOption): LoggerOption {
  if (logger === true) return { serializers: { err: errSerializer } };
  if (logger && typeof logger === 'object')
    return { ...logger, serializers: { ...logger.serializers, err: errSerializer } };
  return logger;
}
