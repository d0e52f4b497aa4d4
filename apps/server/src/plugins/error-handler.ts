import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorBody } from '@cellhub/contract/errors';
import type { FieldIssue } from '@cellhub/contract/common';
import { AppError } from '../lib/app-error';
import { SOCKET_SECURITY_HEADERS } from './security-headers';
import { isDatabaseUnavailable } from '../lib/db-unavailable';

function send(reply: FastifyReply, err: AppError): FastifyReply {
  const body: ErrorBody = { code: err.code, message: err.message };
  if (err.details !== undefined) body.details = err.details;
  return reply.code(err.httpStatus).headers(err.headers).type('application/json; charset=utf-8').send(body);
}

function fieldOf(instancePath: string, context: string | undefined): string {
  const path = instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  return path || context || 'body';
}

// Busboy: "Unexpected end of multipart data" for the body, "... unexpected end of multipart data" for a part.
const MULTIPART_BROKEN = /unexpected end of multipart data|^Multipart: Boundary not found$/i;

/** Maps every failure to the error body of CONTRACT.md; nothing internal leaves a 5xx. */
export function toAppError(err: FastifyError, request: FastifyRequest): AppError {
  if (err instanceof AppError) return err;
  if (hasZodFastifySchemaValidationErrors(err) || Array.isArray(err.validation)) {
    const details: FieldIssue[] = (err.validation ?? []).map((v) => ({
      field: fieldOf(v.instancePath, err.validationContext),
      message: v.message ?? 'invalid',
    }));
    return new AppError(10113, 400, undefined, details);
  }
  // Busboy's errors carry no code: a multipart body that breaks off before its closing boundary, or has none.
  if (!err.code && MULTIPART_BROKEN.test(err.message)) {
    return new AppError(40003, 400, 'The multipart body is incomplete or malformed');
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(50001);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(40003);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(50002, 415, 'Unsupported content type');
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Fastify's own 4xx texts describe the request, not the server; safe to pass on, under a code of the table.
    if (status === 404) return new AppError(10106, 404, err.message);
    return new AppError(10113, 400, undefined, [{ field: 'request', message: err.message }]);
  }
  // The database is down (stopped, restarting, unreachable): a dependency failure the caller may retry, not a
  // fault of this request.
  if (isDatabaseUnavailable(err)) {
    request.log.warn({ err: err.message }, 'database unavailable');
    return new AppError(10105);
  }
  request.log.error({ err }, 'unexpected error');
  return new AppError(10101);
}

export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((err: FastifyError, request, reply) => {
      const appError = toAppError(err, request);
      if (appError.httpStatus >= 500 && err instanceof AppError) request.log.error({ err }, appError.message);
      return send(reply, appError);
    });
  },
  { name: 'error-handler' },
);

export const sendAppError = send;

/**
 * Errors of the HTTP parser, before any request exists (Fastify's `clientErrorHandler`): headers over Node's
 * `--max-http-header-size` (431), a request not read in time (408), malformed HTTP (400). Answered on the socket
 * with the error body of CONTRACT.md, as Fastify's default would answer with its own shape.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status: number;
  let reason: string;
  let body: ErrorBody;
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    [status, reason] = [431, 'Request Header Fields Too Large'];
    body = {
      code: 10113,
      message: 'Request headers too large',
      details: [{ field: 'headers', message: 'the request headers exceed the size limit' }],
    };
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    [status, reason] = [408, 'Request Timeout'];
    body = { code: 40003, message: 'The request was not received in time' };
  } else {
    [status, reason] = [400, 'Bad Request'];
    body = { code: 40003, message: 'Malformed HTTP request' };
  }
  if (socket.writable) {
    const json = JSON.stringify(body);
    // The security headers every answer carries (onSend never runs for these).
    const security = Object.entries(SOCKET_SECURITY_HEADERS)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\n${security}Connection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy(err);
}
