import { BAD_TEXT_MESSAGE } from '@cellhub/contract/text';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNDECODABLE_MESSAGE } from './plugins/input-guard';
import { buildTestApp, errorOf, type TestApp } from './test/app';

/**
 * A probe with hostile text on every route of the OpenAPI document (which the route matrix in routes.test.ts keeps
 * equal to the app's routes): NUL and an unpaired surrogate in every body field, query parameter, path parameter and
 * a header the server reads, signed in as admin so that every route reaches its input. Each must answer 400 / 10113
 * naming the field, never 500, whatever the route's schema says.
 */

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string }[];
  bodyFields: string[];
  json: boolean;
}

interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string }[];
        requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
      }
    >
  >;
}

const NUL = 'a\u0000b';
const LONE = 'a\ud800b';

let t: TestApp;
let admin: string;
let operations: Operation[];

/** EMQX's hooks take no sign-in but a shared secret, checked before the body (docs/external-brokers.md). */
const HOOK_SECRET = 'probe-hook-secret-0123456789';
const hookHeaders = (path: string): Record<string, string> =>
  path.startsWith('/api/broker-auth/') ? { 'x-cellhub-hook-secret': HOOK_SECRET } : {};

beforeAll(async () => {
  t = await buildTestApp({
    config: { brokerAuth: { hookSecret: HOOK_SECRET, dynsec: { enabled: false, reconcileMs: 3_600_000 } } },
  });
  admin = await t.adminToken();
  const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as OpenApiDoc;
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const content = op.requestBody?.content ?? {};
      const jsonSchema = content['application/json']?.schema;
      return {
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        bodyFields: Object.keys(jsonSchema?.properties ?? {}),
        json: method !== 'get' && method !== 'delete' && !content['multipart/form-data'],
      };
    }),
  );
});
afterAll(() => t.close());

/** A valid-looking URL of the operation, with `bad` as the value of path parameter `poison` if given. */
function urlOf(op: Operation, poison?: { name: string; encoded: string }): string {
  return op.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    poison?.name === name ? poison.encoded : name.includes('id') ? '1' : 'probe',
  );
}

function expectRefused(
  res: LightMyRequestResponse,
  label: string,
  field?: string,
  message = BAD_TEXT_MESSAGE,
): void {
  expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
  const err = errorOf(res);
  expect(err.code, label).toBe(10113);
  if (field) {
    expect(err.details, label).toEqual([{ field, message }]);
  }
}

describe('hostile text on every route', () => {
  it('finds the routes in the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThan(100);
    expect(operations.filter((op) => op.bodyFields.length > 0).length).toBeGreaterThan(40);
  });

  it('refuses NUL and unpaired surrogates in every JSON body field (and an unknown one)', async () => {
    const failures: string[] = [];
    for (const op of operations.filter((o) => o.json)) {
      for (const field of [...op.bodyFields, 'probe_extra']) {
        for (const [name, value] of [
          ['NUL', NUL],
          ['surrogate', LONE],
        ] as const) {
          const label = `${op.method} ${op.path} body.${field} ${name}`;
          // JSON.stringify writes a lone surrogate as the escape \ud800, which JSON.parse turns back into one.
          const res = await t.inject({
            method: op.method as 'POST',
            url: urlOf(op),
            token: admin,
            headers: { 'content-type': 'application/json', ...hookHeaders(op.path) },
            payload: JSON.stringify({ [field]: value }),
          });
          if (res.statusCode >= 500) failures.push(`${label}: ${res.statusCode} ${res.body}`);
          else expectRefused(res, label, field);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses them nested in arrays and objects, and in object keys', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: admin,
      payload: { name: 'ok', tags: [{ deep: ['x', NUL] }] },
    });
    expectRefused(res, 'nested', 'tags.0.deep.1');
    const key = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: admin,
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"ok","meta":{"\\ud800":1}}',
    });
    expectRefused(key, 'key', 'meta.(key)');
  });

  it('refuses NUL and undecodable bytes in every query and path parameter', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      for (const param of op.params.filter((p) => p.in === 'query' || p.in === 'path')) {
        // %ED%A0%80 is a surrogate encoded as UTF-8, which no decoder may turn into text.
        for (const encoded of ['a%00b', 'a%ED%A0%80b']) {
          const label = `${op.method} ${op.path} ${param.in}.${param.name}=${encoded}`;
          const url =
            param.in === 'path'
              ? urlOf(op, { name: param.name, encoded })
              : `${urlOf(op)}?${param.name}=${encoded}`;
          const res = await t.inject({ method: op.method as 'GET', url, token: admin });
          if (res.statusCode >= 500) failures.push(`${label}: ${res.statusCode} ${res.body}`);
          else if (param.in === 'path') expectRefused(res, label);
          else if (encoded === 'a%00b') expectRefused(res, label, `query.${param.name}`);
          else expectRefused(res, label, `query.${param.name}`, UNDECODABLE_MESSAGE);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses NUL in the headers the server reads, before sign-in reads them', async () => {
    const ops = operations.filter((op) => !op.path.includes('{') && op.method === 'GET');
    expect(ops.length).toBeGreaterThan(10);
    for (const op of ops) {
      for (const header of ['user-agent', 'idempotency-key', 'x-n-accesskey']) {
        const res = await t.inject({
          method: 'GET',
          url: op.path,
          headers: { authorization: `Bearer ${admin}`, [header]: NUL },
        });
        expectRefused(res, `${op.path} ${header}`, `headers.${header}`);
      }
    }
    const res = await t.inject({
      method: 'GET',
      url: '/api/user/info',
      headers: { authorization: `Bearer ${admin}\u0000` },
    });
    expectRefused(res, 'authorization', 'headers.authorization');
  });

  it('refuses them on sign-in, before any account is looked up', async () => {
    for (const value of [NUL, LONE]) {
      for (const body of [
        { username: value, password: 'x' },
        { username: 'admin', password: value },
      ]) {
        const res = await t.inject({
          method: 'POST',
          url: '/api/auth/login',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expectRefused(res, `login ${JSON.stringify(body)}`);
      }
    }
  });

  it('lets paired surrogates (emoji) and other text through', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/products',
      token: admin,
      payload: { name: 'Pump 🚰 泵', product_key: `pk_probe_${Date.now()}` },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});
