import { randomInt } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { ERROR_CODES, isErrorCode } from '@cellhub/contract/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../modules/auth/auth.service';
import { rateLimits } from '../modules/rate-limit/rate-limit.table';
import { users } from '../modules/users/users.table';
import { buildTestApp, type TestApp } from '../test/app';
import { operationsOf, type OpenApiDoc, type Operation } from '../test/openapi-operations';
import { figure, sized } from './figures';
import { generateInputs, Prng, type FuzzInput } from '../test/fuzz-inputs';

/**
 * Input fuzz from the OpenAPI document (issue 20): for every operation, invalid inputs generated from its schemas
 * (fuzz-inputs.ts) sent as admin (so they reach the handlers), some as a normal user and some signed out. Every
 * answer must be under 500, in the envelope of docs/api-conventions.md with a code from the contract's table (or a
 * success where the input was in fact valid), and `Object.prototype` must be unchanged after every route.
 * Every answer is also checked for the security headers the server promises (docs/api-conventions.md), and a
 * sample of the answers fuzz does not reach: static console files, the API docs, 404s, parser errors on a socket.
 *
 * FUZZ_SEED=<n> repeats a run; a failure's label names the seed and the input's index.
 */

// CI size runs one fixed seed (a red CI run must be the code's doing, and repeatable); full size draws a new one
// each run, printed, to explore.
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : sized(1_592_693_241, randomInt(2 ** 31));
/**
 * CI size: 16 per route (5,840 inputs) costs about 40 s of CPU (about 7 ms an input, measured with the machine's
 * other work counted out), so the file stays within 90 s alone; full size is the issue's 500 per route.
 */
const PER_ROUTE = Number(process.env.FUZZ_PER_ROUTE ?? sized(16, 500));
/** FUZZ_ROUTES=<regex> fuzzes only the operations whose `METHOD /path` matches (to repeat one failure quickly). */
const ROUTE_FILTER = process.env.FUZZ_ROUTES ? new RegExp(process.env.FUZZ_ROUTES) : undefined;

const PROMISED_HEADERS: Record<string, (value: string) => boolean> = {
  'content-security-policy': (v) => /frame-ancestors 'none'/.test(v) && /default-src 'self'/.test(v),
  'x-content-type-options': (v) => v === 'nosniff',
  'referrer-policy': (v) => v === 'strict-origin-when-cross-origin',
  'x-frame-options': (v) => v === 'DENY',
};

/** The promised headers an answer lacks (or carries with another value). */
function missingHeaders(headers: Record<string, unknown>): string[] {
  return Object.entries(PROMISED_HEADERS)
    .filter(([name, ok]) => {
      const value = headers[name];
      return typeof value !== 'string' || !ok(value);
    })
    .map(([name]) => name);
}

const PROTO_PROBES = ['polluted', 'isAdmin', 'role', 'uid'] as const;
const PROTOTYPES: [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
];

function prototypeSnapshot(): Map<string, PropertyDescriptor | undefined> {
  const snap = new Map<string, PropertyDescriptor | undefined>();
  for (const [name, proto] of PROTOTYPES) {
    for (const key of Reflect.ownKeys(proto)) {
      snap.set(`${name}.${String(key)}`, Object.getOwnPropertyDescriptor(proto, key));
    }
  }
  return snap;
}

/** What differs from the snapshot, and which probe properties a fresh object now has. */
function prototypeChanges(before: Map<string, PropertyDescriptor | undefined>): string[] {
  const now = prototypeSnapshot();
  const changes: string[] = [];
  for (const [key, d] of now) {
    const old = before.get(key);
    if (!old) changes.push(`new ${key}`);
    else if (old.value !== d?.value || old.get !== d?.get || old.set !== d?.set)
      changes.push(`changed ${key}`);
  }
  for (const key of before.keys()) if (!now.has(key)) changes.push(`removed ${key}`);
  const probe: Record<string, unknown> = {};
  for (const p of PROTO_PROBES) if (probe[p] !== undefined) changes.push(`({}).${p} is ${String(probe[p])}`);
  return changes;
}

/** The JSON of an answer, decoded first when the server compressed it (the input asked with accept-encoding). */
function jsonOf(res: LightMyRequestResponse): unknown {
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
  const raw = res.rawPayload;
  const bytes =
    encoding === 'gzip'
      ? gunzipSync(raw)
      : encoding === 'deflate'
        ? inflateSync(raw)
        : encoding === 'br'
          ? brotliDecompressSync(raw)
          : raw;
  return JSON.parse(bytes.toString('utf8')) as unknown;
}

/** Why an answer breaks the promise, or undefined when it keeps it. */
function verdict(res: LightMyRequestResponse): string | undefined {
  if (res.statusCode >= 500) return `5xx`;
  const type = String(res.headers['content-type'] ?? '');
  const isJson = /^application\/json/i.test(type);
  if (res.statusCode < 400) {
    if (!isJson) return undefined; // downloads, redirects, files
    let body: unknown;
    try {
      body = jsonOf(res);
    } catch {
      return 'bad envelope: success body is not JSON';
    }
    if ((body as { status?: unknown })?.status !== true) return 'bad envelope: success without status true';
    return undefined;
  }
  if (!isJson) return `bad envelope: ${res.statusCode} with content-type ${type || 'none'}`;
  let body: Record<string, unknown>;
  try {
    body = jsonOf(res) as Record<string, unknown>;
  } catch {
    return 'bad envelope: error body is not JSON';
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'bad envelope: not an object';
  if ('status' in body) return 'bad envelope: error body has a status field';
  if (!isErrorCode(body.code)) return `bad envelope: code ${String(body.code)} not in the table`;
  if (typeof body.message !== 'string' || body.message === '') return 'bad envelope: no message';
  return undefined;
}

const short = (text: string, n = 200) => (text.length > n ? `${text.slice(0, n)}...` : text);

let t: TestApp;
let allOperations: Operation[];
let operations: Operation[];
let bodyLimit: number;
const tokens: { admin: string; user: string } = { admin: '', user: '' };
let userUid: number;
const consoleDir = path.join(process.env.TMPDIR ?? '/tmp', `cellhub-fuzz-console-${process.pid}`);

async function mintToken(uid: number): Promise<string> {
  const deps = t.app.deps;
  const [row] = await deps.db.select().from(users).where(eq(users.id, uid));
  if (!row) throw new Error(`user ${uid} is gone`);
  const result = await openSession(deps.db, deps, row, { ip: '127.0.0.1', userAgent: 'fuzz' }, 'password');
  return result.token;
}

let sessionsReminted = 0;
let accountsRestored = 0;

/**
 * Valid inputs do what they say: sign-out ends the session, an admin route may disable the user or demote someone.
 * Between inputs the two accounts are put back and given new sessions, so every input reaches what it aims at.
 */
async function restoreAccounts(): Promise<void> {
  const db = t.app.deps.db;
  for (const [uid, role] of [
    [1, 'admin'],
    [userUid, 'user'],
  ] as const) {
    const [row] = await db
      .select({ role: users.role, disabled: users.disabled })
      .from(users)
      .where(eq(users.id, uid));
    if (row && (row.role !== role || row.disabled)) {
      await db.update(users).set({ role, disabled: false }).where(eq(users.id, uid));
      accountsRestored++;
    }
  }
  for (const actor of ['admin', 'user'] as const) {
    const res = await t.inject({ method: 'GET', url: '/api/user/info', token: tokens[actor] });
    if (res.statusCode !== 200) {
      tokens[actor] = await mintToken(actor === 'admin' ? 1 : userUid);
      sessionsReminted++;
    }
  }
}

/** A product and a device the generated path parameters name, so inputs get past "not found". */
const KNOWN = { product_key: 'pk_fuzz_0001', sn: 'FUZZSN0001' };
async function ensureFixtures(): Promise<void> {
  await t.inject({
    method: 'POST',
    url: '/api/products',
    token: tokens.admin,
    payload: { name: 'fuzz', product_key: KNOWN.product_key },
  });
  await t.inject({
    method: 'POST',
    url: '/api/devices',
    token: tokens.admin,
    payload: { product_key: KNOWN.product_key, sn: [KNOWN.sn] },
  });
}

function send(input: FuzzInput, index: number): Promise<LightMyRequestResponse> {
  const headers = { ...input.headers };
  if (input.actor !== 'anonymous' && !('authorization' in headers)) {
    headers.authorization = `Bearer ${tokens[input.actor]}`;
  }
  return t.inject({
    method: input.method,
    url: input.url,
    headers,
    payload: input.payload,
    // Per-address sign-in and SMS limits would turn the auth routes' inputs into 429s after a few.
    remoteAddress: `127.0.${(index >> 8) & 255}.${index & 255}`,
  });
}

beforeAll(async () => {
  mkdirSync(path.join(consoleDir, 'assets'), { recursive: true });
  writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><title>Cellhub</title>');
  writeFileSync(path.join(consoleDir, 'assets', 'app-abc123.js'), 'console.log(1);');
  t = await buildTestApp({ config: { consoleDist: consoleDir } });
  bodyLimit = t.app.deps.config.bodyLimit;
  tokens.admin = await t.adminToken();
  const user = await t.createUser();
  tokens.user = user.token;
  userUid = user.uid;
  const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as OpenApiDoc;
  allOperations = operationsOf(doc);
  operations = allOperations.filter((op) => !ROUTE_FILTER || ROUTE_FILTER.test(`${op.method} ${op.path}`));
  await ensureFixtures();
  console.log(
    `openapi-fuzz: seed ${SEED} (FUZZ_SEED=${SEED} repeats this run), ${PER_ROUTE} inputs per route`,
  );
});

afterAll(async () => {
  await t?.close();
  rmSync(consoleDir, { recursive: true, force: true });
});

interface HeaderSample {
  label: string;
  missing: string[];
}
const headerSamples: HeaderSample[] = [];
let fuzzSamples = 0;
let fuzzAnswers = 0;
let fuzzHeaderless = 0;
function sampleHeaders(label: string, headers: Record<string, unknown>): void {
  headerSamples.push({ label, missing: missingHeaders(headers) });
}

describe('input fuzz from the OpenAPI document', () => {
  it('finds the routes, with upload routes among them', () => {
    expect(allOperations.length).toBeGreaterThan(300);
    expect(allOperations.filter((op) => op.body).length).toBeGreaterThan(100);
    // firmware and application versions, device import, SIM cards and usage, data template variables, scene images
    expect(allOperations.filter((op) => op.multipart).length).toBeGreaterThanOrEqual(7);
    expect(operations.length).toBeGreaterThan(0);
  });

  it('has a judge that flags what it must', () => {
    const answer = (statusCode: number, body: string, type = 'application/json; charset=utf-8') =>
      ({
        statusCode,
        body,
        headers: { 'content-type': type },
        rawPayload: Buffer.from(body),
      }) as unknown as LightMyRequestResponse;
    expect(verdict(answer(500, '{"code":10101,"message":"Server error"}'))).toBe('5xx');
    expect(verdict(answer(400, '{"code":99999,"message":"x"}'))).toMatch(/not in the table/);
    expect(verdict(answer(400, '{"status":false,"code":10113,"message":"x"}'))).toMatch(/status field/);
    expect(verdict(answer(400, 'oops', 'text/plain'))).toMatch(/content-type/);
    expect(verdict(answer(200, '{"data":1}'))).toMatch(/without status true/);
    expect(verdict(answer(400, '{"code":10113,"message":"Form error"}'))).toBeUndefined();
    expect(verdict(answer(200, '{"status":true,"data":null}'))).toBeUndefined();
    // A compressed answer (the input asked for it) is judged on its decoded JSON.
    const zipped = {
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      rawPayload: gzipSync('{"status":true,"data":1}'),
    } as unknown as LightMyRequestResponse;
    expect(verdict(zipped)).toBeUndefined();
    expect(missingHeaders({ 'x-frame-options': 'DENY' })).toHaveLength(3);
    const before = prototypeSnapshot();
    (Object.prototype as Record<string, unknown>).polluted = 'probe';
    try {
      expect(prototypeChanges(before)).toEqual(['new Object.prototype.polluted', '({}).polluted is probe']);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
    expect(prototypeChanges(before)).toEqual([]);
  });

  it(
    `answers every generated invalid input under 500, in the envelope, prototypes untouched`,
    async () => {
      const started = Date.now();
      const cpuAtStart = process.cpuUsage();
      const before = prototypeSnapshot();
      const failures: string[] = [];
      const perRoute: number[] = [];
      const byKind = new Map<string, number>();
      let total = 0;
      let fiveXX = 0;
      let badEnvelopes = 0;
      let prototypeChanged = 0;
      let successes = 0;
      let headerless = 0;
      const statuses = new Map<number, number>();
      const kindMs = new Map<string, number>();
      const slowest: [string, number][] = [];

      for (const [opIndex, op] of operations.entries()) {
        // Each operation draws from its own stream, so one route's inputs do not shift with another's.
        const prng = new Prng((SEED ^ Math.imul(opIndex + 1, 0x9e3779b1)) >>> 0);
        let n = 0;
        let sampledHeaders = false;
        let routeMs = 0;
        let changedSomething = false;
        for (const input of generateInputs(op, PER_ROUTE, prng, { knownParams: KNOWN, bodyLimit })) {
          const index = n++;
          const cpuBefore = process.cpuUsage();
          const res = await send(input, index);
          const cpuTook = process.cpuUsage(cpuBefore);
          const took = (cpuTook.user + cpuTook.system) / 1000;
          kindMs.set(input.kind, (kindMs.get(input.kind) ?? 0) + took);
          routeMs += took;
          total++;
          byKind.set(input.kind, (byKind.get(input.kind) ?? 0) + 1);
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const label = `${op.method} ${op.path} ${input.kind} [${input.detail}] as ${input.actor} #${index} seed=${SEED}`;
          const bad = verdict(res);
          if (bad) {
            if (bad === '5xx') fiveXX++;
            else badEnvelopes++;
            failures.push(`${label}: ${bad}: ${res.statusCode} ${short(res.body)}`);
          } else if (res.statusCode < 400) successes++;
          const missing = missingHeaders(res.headers);
          if (missing.length > 0) headerless++;
          if (!sampledHeaders || missing.length > 0) {
            sampleHeaders(`${op.method} ${op.path} ${res.statusCode}`, res.headers);
            sampledHeaders = true;
          }
          if (res.statusCode === 403 && input.actor !== 'anonymous' && !('authorization' in input.headers)) {
            await restoreAccounts();
          }
          if (res.statusCode < 400 && op.method !== 'GET') changedSomething = true;
          // Failed sign-ins of one account slow its next ones (up to 4 s each, sessions.test.ts measures it): 500
          // inputs would spend most of their time waiting. Input handling is what is fuzzed here.
          if (op.path.startsWith('/api/auth/')) await t.app.deps.db.delete(rateLimits);
        }
        perRoute.push(n);
        slowest.push([`${op.method} ${op.path}`, routeMs]);
        const changes = prototypeChanges(before);
        if (changes.length > 0) {
          prototypeChanged++;
          failures.push(`${op.method} ${op.path} seed=${SEED}: prototypes changed: ${changes.join(', ')}`);
        }
        // A valid input may have signed out, disabled or demoted an account, or deleted the fixtures.
        if (changedSomething) {
          await restoreAccounts();
          await ensureFixtures();
        }
      }

      fuzzSamples = headerSamples.length;
      fuzzAnswers = total;
      fuzzHeaderless = headerless;

      // The process is still whole: it answers, and reads its database.
      const health = await t.inject({ method: 'GET', url: '/api/health' });
      expect(health.statusCode, health.body).toBe(200);
      const info = await t.inject({ method: 'GET', url: '/api/user/info', token: tokens.admin });
      expect(info.statusCode, info.body).toBe(200);

      const seconds = (Date.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuAtStart);
      console.log(
        `openapi-fuzz: ${seconds.toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU`,
      );
      const detail = `seed ${SEED}, ${operations.length} operations${ROUTE_FILTER ? ` matching ${ROUTE_FILTER.source}` : ''}, ${seconds.toFixed(0)} s`;
      console.log(
        `openapi-fuzz: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}, ` +
          `kinds ${JSON.stringify(Object.fromEntries([...byKind].sort()))}, successes ${successes}, ` +
          `sessions re-minted ${sessionsReminted}, accounts restored ${accountsRestored}, ` +
          `answers without every security header ${headerless}`,
      );
      const ms = (entries: Iterable<[string, number]>) =>
        [...entries]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 12)
          .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
          .join(', ');
      console.log(`openapi-fuzz: CPU by kind ${ms(kindMs)}; by route ${ms(slowest)}`);
      figure({
        name: 'fuzz.routes',
        value: operations.length,
        unit: 'operations',
        detail: 'every operation of /api/docs/json',
      });
      figure({
        name: 'fuzz.inputs_per_route',
        value: Math.min(...perRoute),
        unit: 'inputs (min)',
        target: sized('16 at CI size', '>= 500'),
        detail,
      });
      figure({ name: 'fuzz.inputs_total', value: total, unit: 'inputs', detail });
      figure({ name: 'fuzz.responses_5xx', value: fiveXX, unit: 'count', target: '0', detail });
      figure({ name: 'fuzz.bad_envelopes', value: badEnvelopes, unit: 'count', target: '0', detail });
      figure({
        name: 'fuzz.prototype_changed',
        value: prototypeChanged,
        unit: 'routes',
        target: '0',
        detail,
      });

      expect(failures.slice(0, 50), `${failures.length} failures; first 50`).toEqual([]);
      for (const [name] of PROTOTYPES) expect(prototypeChanges(before), name).toEqual([]);
    },
    sized(600_000, 4 * 3_600_000),
  );

  it('refuses what the fuzz found answering 500 (regressions)', async () => {
    // A device owner past int4 reached the UPDATE and failed there.
    for (const uid of [2 ** 31, Number.MAX_SAFE_INTEGER]) {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/devices/${KNOWN.sn}`,
        token: tokens.admin,
        payload: { uid },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 10113, details: [{ field: 'uid' }] });
      const create = await t.inject({
        method: 'POST',
        url: '/api/devices',
        token: tokens.admin,
        payload: { product_key: KNOWN.product_key, sn: ['FUZZSN0002'], uid },
      });
      expect(create.statusCode, create.body).toBe(400);
    }
    // An account id past int4 in the path of the admin's account routes reached the query (seed 1592693241).
    for (const verb of ['disable', 'enable'] as const) {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/users/${2 ** 31}/${verb}`,
        token: tokens.admin,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 10113 });
    }
  });

  it('carries the security headers on answers fuzz does not reach', async () => {
    const inject = async (label: string, opts: Parameters<TestApp['inject']>[0]) => {
      const res = await t.inject(opts);
      sampleHeaders(`${label} ${res.statusCode}`, res.headers);
      return res;
    };
    await inject('unknown API route', { method: 'GET', url: '/api/no-such-route' });
    await inject('unknown API route, POST', { method: 'POST', url: '/api/no-such-route', payload: {} });
    await inject('signed out', { method: 'GET', url: '/api/user/info' });
    await inject('bad token', { method: 'GET', url: '/api/user/info', token: 'nope' });
    await inject('invalid input', { method: 'POST', url: '/api/auth/login', payload: { username: 1 } });
    await inject('body over the limit', {
      method: 'POST',
      url: '/api/products',
      token: tokens.admin,
      headers: { 'content-type': 'application/json' },
      payload: `"${'x'.repeat(bodyLimit + 1)}"`,
    });
    await inject('unsupported type', {
      method: 'POST',
      url: '/api/products',
      token: tokens.admin,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    await inject('malformed URL', { method: 'GET', url: '/api/devices/%E0%A4%A' });
    await inject('health', { method: 'GET', url: '/api/health' });
    await inject('console index', { method: 'GET', url: '/' });
    await inject('console route (SPA fallback)', { method: 'GET', url: '/device/list' });
    await inject('console asset', { method: 'GET', url: '/assets/app-abc123.js' });
    await inject('missing console asset', { method: 'GET', url: '/assets/gone-000.js' });
    await inject('source map', { method: 'GET', url: '/assets/app-abc123.js.map' });
    await inject('console HEAD', { method: 'HEAD', url: '/' });
    await inject('API docs', { method: 'GET', url: '/api/docs' });
    await inject('API docs JSON', { method: 'GET', url: '/api/docs/json' });
    const docsPage = await t.inject({ method: 'GET', url: '/api/docs/static/index.html' });
    sampleHeaders(`API docs static ${docsPage.statusCode}`, docsPage.headers);
    await inject('OPTIONS', { method: 'OPTIONS', url: '/api/products' });
    await inject('method not routed', { method: 'PATCH', url: '/api/health' });
    await inject('websocket without upgrade', { method: 'GET', url: '/api/ws' });

    // Answers written by the HTTP parser's error handler, before any request exists: over a real socket.
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (t.app.server.address() as AddressInfo).port;
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port });
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        // Written, not ended: the server closes after its answer (Connection: close or a parser error).
        socket.write(request);
      });
    const headersOf = (answer: string) => {
      const head = answer.split('\r\n\r\n')[0] ?? '';
      const out: Record<string, string> = {};
      for (const line of head.split('\r\n').slice(1)) {
        const at = line.indexOf(':');
        if (at > 0) out[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      return { status: head.split(' ')[1], headers: out };
    };
    for (const [label, request] of [
      [
        'headers too large',
        `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`,
      ],
      ['malformed HTTP', 'GARBAGE\r\n\r\n'],
      ['real socket 404', 'GET /api/nope HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'],
    ] as const) {
      const answer = headersOf(await raw(request));
      sampleHeaders(`${label} ${answer.status} (socket)`, answer.headers);
    }

    const complete = headerSamples.filter((s) => s.missing.length === 0).length;
    const share = (100 * complete) / headerSamples.length;
    figure({
      name: 'headers.responses_sampled',
      value: headerSamples.length,
      unit: 'answers',
      detail:
        `${fuzzSamples} from the fuzz (one per route, plus any lacking a header; all ${fuzzAnswers} fuzz answers ` +
        `were checked, ${fuzzHeaderless} lacked one) and ${headerSamples.length - fuzzSamples} others ` +
        '(404, 403, 400, 413, 415, static console files, API docs, parser errors on a socket)',
    });
    figure({
      name: 'headers.complete_share',
      value: Number(share.toFixed(2)),
      unit: '%',
      target: '100 %',
      detail: Object.keys(PROMISED_HEADERS).join(', '),
    });
    expect(
      headerSamples
        .filter((s) => s.missing.length > 0)
        .map((s) => `${s.label}: lacks ${s.missing.join(', ')}`),
    ).toEqual([]);
    // Every route was sampled, plus the others.
    expect(headerSamples.length).toBeGreaterThanOrEqual(operations.length + 20);
    // The code table still has the codes these answers use (a guard against checking against an empty table).
    expect(Object.keys(ERROR_CODES).length).toBeGreaterThan(100);
  });
});
