import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorBody } from '@cellhub/contract/errors';
import type { FieldIssue } from '@cellhub/contract/common';
import { AppError } from '../lib/app-error';

function send(reply: FastifyReply, err: AppError): FastifyReply {
  const body: ErrorBody = { code: err.code, message: err.message };
  if (err.details !== undefined) body.details = err.details;
  return reply.code(err.httpStatus).headers(err.headers).type('application/json; charset=utf-8').send(body);
}

function fieldOf(instancePath: string, context: string | undefined): string {
  const path = instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  return path || context || 'body';
}

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
    // Fastify's own 4xx texts describe the request, not the server; safe to pass on.
    return new AppError(100, status === 404 ? 404 : 400, err.message);
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
