import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { BAD_TEXT_MESSAGE, findBadText, isBadText } from '@cellhub/contract/text';
import { formError } from '../lib/app-error';

/**
 * Headers the server reads (sign-in, sessions, idempotency, ranges, proxies, access-key signatures). A header nobody
 * reads cannot reach a statement, so it is left alone.
 */
const READ_HEADERS = [
  'authorization',
  'user-agent',
  'idempotency-key',
  'range',
  'if-range',
  'x-forwarded-for',
  'x-real-ip',
] as const;
const READ_HEADER_PREFIX = 'x-n-';

function badHeader(request: FastifyRequest): string | undefined {
  for (const [name, value] of Object.entries(request.headers)) {
    if (
      !READ_HEADERS.includes(name as (typeof READ_HEADERS)[number]) &&
      !name.startsWith(READ_HEADER_PREFIX)
    ) {
      continue;
    }
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && isBadText(v))) return `headers.${name}`;
  }
  return undefined;
}

/**
 * The query parser keeps an escape it cannot decode (`%ED%A0%80`, a surrogate as UTF-8; `%FF`) as literal text; the
 * sender meant characters no text may hold, so the request is refused like a NUL rather than stored mangled.
 */
export const UNDECODABLE_MESSAGE = 'not valid percent-encoded UTF-8';

function undecodableQuery(url: string): string | undefined {
  const at = url.indexOf('?');
  if (at === -1 || !url.includes('%', at)) return undefined;
  for (const pair of url.slice(at + 1).split('&')) {
    const [name = '', value = ''] = pair.split('=', 2);
    try {
      decodeURIComponent(name);
      decodeURIComponent(value);
    } catch {
      return `query.${/^[\w-]{1,64}$/.test(name) ? name : '(key)'}`;
    }
  }
  return undefined;
}

export const NOTHING_TO_UPDATE = 'nothing to update: send at least one field';

/**
 * An update route (PUT or PATCH with a body schema) given no field it knows: `{}`, or only fields its schema drops.
 * Services build their UPDATE from the fields present, and an UPDATE without columns is an error in the database
 * layer (it answered 500); every update route answers this one way instead. Decided on the fields the caller sent
 * that survive validation, so defaults the schema fills in do not count as sent.
 */
const isUpdate = (request: FastifyRequest) =>
  (request.method === 'PUT' || request.method === 'PATCH') && request.routeOptions.schema?.body !== undefined;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The server half of the contract's text type: no NUL or unpaired surrogate from a query string, route parameter,
 * read header or JSON body reaches a route, whatever its schema says, so a route added tomorrow is covered too.
 * Query, parameters and headers are checked on arrival (before sign-in, which reads a header); the body once
 * parsed. Multipart fields are read by their routes, which check them with the same `isBadText`.
 */
export const inputGuardPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', async (request) => {
      const field =
        findBadText(request.query, 'query') ?? findBadText(request.params, 'params') ?? badHeader(request);
      if (field) throw formError(field, BAD_TEXT_MESSAGE);
      const undecodable = undecodableQuery(request.url);
      if (undecodable) throw formError(undecodable, UNDECODABLE_MESSAGE);
    });
    // The fields the caller sent to an update route, before validation fills in defaults.
    const sentFields = new WeakMap<FastifyRequest, string[]>();
    app.addHook('preValidation', async (request) => {
      if (isUpdate(request) && isPlainObject(request.body))
        sentFields.set(request, Object.keys(request.body));
      // Body fields are named as schema failures name them, so the console marks the form field.
      const field = findBadText(request.body);
      if (field) throw formError(field, BAD_TEXT_MESSAGE);
    });
    // After validation, so unknown fields (which the schema drops) count as nothing too.
    app.addHook('preHandler', async (request) => {
      const sent = sentFields.get(request);
      const body = request.body;
      // Own properties only: a sent `constructor` or `toString` that the schema dropped must not count as sent
      // because every object inherits one (it answered 500 from an UPDATE without columns).
      if (
        sent &&
        isPlainObject(body) &&
        !sent.some((key) => Object.hasOwn(body, key) && body[key] !== undefined)
      ) {
        throw formError('body', NOTHING_TO_UPDATE);
      }
    });
  },
  { name: 'input-guard', dependencies: ['error-handler'] },
);
