import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_SCOPES } from '@cellhub/contract/access';
import { openRouteScope } from '../modules/access-keys/open-routes';
import { buildTestApp, type TestApp, USER_PASSWORD } from '../test/app';
import { deviceRef, report } from '../test/alerts-test-kit';
import { createDevices } from '../test/gateway-test-kit';
import { otaFixture } from '../test/ota-test-kit';
import { allowTestTarget } from '../test/outbound';
import { createCard, createPackage, manualProvider, topup } from '../test/sim-test-support';
import { givePhone, signHeaders, verifiedKey } from '../test/signed-request';
import { figure } from './figures';
import {
  type Ids,
  type KeyPair,
  type Kit,
  type Need,
  type Person,
  RESOURCE_TYPES,
  type ResourceType,
  useForwardTarget,
  type Verb,
  type World,
} from './rights-matrix-kit';

/**
 * The rights matrix (issue 20): every user-owned resource type (rights-matrix-kit.ts) x every verb route on it x
 * every caller who has no right to it, on one real instance the owner made through the API. For each call:
 *
 * - no 2xx without the right; no string of the owner's resource in a refusal's body;
 * - "not yours" answers exactly like "does not exist": the same call with the resource's ids replaced by missing
 *   ones gives the same status and code (for the stranger also with their own parent and the owner's child);
 * - nothing a refused call asked for took effect: the owner's view of the resource is the same afterwards.
 *
 * Callers: a stranger, holders of a view, a control and an expired share of the owner's devices, an access key of
 * the owner without the route's scope, the stranger's key with every scope, and the owner's token and key after
 * an admin disabled the account. The owner's own calls come last, as the positive control: each must succeed
 * (or answer the business code its row names), proving the resource exists and the route works. Share holders'
 * calls that docs/sharing.md allows are positive controls too.
 */

/** Generous: the matrix is a fixed number of calls, and a machine shared with other test runs is slow. */
const BUDGET_MS = 300_000;
/** What no normal user creates, so it has no row here (docs/authorisation.md: administration). */
const ADMIN_ONLY_NOTE =
  'admin-made, not in the matrix: firmware, platforms, command groups (their commands are sent here through ' +
  'the device route), device hosts, packages, applications, ' +
  'SIM providers; tunnels need an online device (device-rights-matrix.test.ts covers their routes)';

type Share = 'view' | 'control';
type Right = 'none' | 'view' | 'control' | 'owner';
const RANK: Record<Right, number> = { none: 0, view: 1, control: 2, owner: 3 };

/** Codes that mean "no such thing" or "not allowed" (the not-found code of each route is read from its answer). */
const RIGHTS_CODES = new Set([10102, 10103, 10107, 10108, 10117, 10210, 10227]);

interface Caller {
  name: string;
  /** The device share this caller holds on the owner's shared devices. */
  share?: Share;
  /** What the caller is refused whatever the resource (keys without the scope, disabled accounts). */
  fixed?: (verb: Verb) => { code: number; status: number } | undefined;
  authorize(req: InjectOptions, verb: Verb): InjectOptions;
  /** Calls only the routes an access key may call (docs/open-api.md). */
  openRoutesOnly?: boolean;
  /** The stranger: also calls the cross variants with their own parent. */
  crossing?: boolean;
}

interface Answer {
  status: number;
  code: number;
  body: string;
}

let t: TestApp;
let k: Kit;
let admin = '';
let A: Person;
let B: Person;
let worldA: World;
let worldB: World;
let keysA: { all: KeyPair; without: Record<string, KeyPair> };
let keyB: KeyPair;
let closeHook: () => Promise<void>;
const inst = new Map<string, { a: Ids; b: Ids }>();
/** Strings of the owner's resources (names, secrets, keys) that no refusal may carry. */
const secrets = new Map<string, string[]>();
const before = new Map<string, string>();
/** The owner's secrets a share holder never sees: the shared devices' secrets and their product's secret. */
const ownerOnly: string[] = [];
const callers: Caller[] = [];

const tally = {
  cells: 0,
  leaks: [] as string[],
  mismatches: [] as string[],
  wrong: [] as string[],
  failedControls: [] as string[],
  /** How the refusals answered, by status/code (a reader sees that they are refusals, not input errors). */
  answers: new Map<string, number>(),
  verbs: new Set<string>(),
  actors: new Set<string>(),
};

const answerOf = (res: LightMyRequestResponse): Answer => {
  let code = 0;
  if (res.statusCode >= 300) {
    try {
      code = (res.json() as { code?: number }).code ?? -1;
    } catch {
      code = -1;
    }
  }
  return { status: res.statusCode, code, body: res.body };
};
const say = (a: Answer) => `${a.status}/${a.code} ${a.body.slice(0, 200)}`;

const bearer = (token: () => string) => (req: InjectOptions) => ({
  ...req,
  headers: { ...req.headers, authorization: `Bearer ${token()}` },
});

/** A request signed with `key` (the query is in the URL, which is what a key signs). */
const signedWith = (key: () => KeyPair) => (req: InjectOptions) => {
  const method = String(req.method ?? 'GET').toUpperCase() as 'GET' | 'POST' | 'PUT' | 'DELETE';
  const payload =
    req.payload && typeof req.payload === 'object' && !Buffer.isBuffer(req.payload)
      ? (req.payload as Record<string, unknown>)
      : undefined;
  const url = String(req.url);
  return { ...req, headers: { ...req.headers, ...signHeaders(t, { method, url, payload, key: key() }) } };
};

/** The request of a verb on the resource `ids` of `w` (path from the route key, body from the row). */
function requestOf(verb: Verb, ids: Ids, w: World): InjectOptions {
  const [method, path] = verb.route.split(' ') as [InjectOptions['method'], string];
  const url = path.replace(/:(\w+)/g, (_m, name: string) => {
    const v = ids[verb.params?.[name] ?? name];
    if (v === undefined) throw new Error(`${verb.route}: no id for :${name}`);
    return encodeURIComponent(v);
  });
  const qs = verb.query ? `?${new URLSearchParams(verb.query).toString()}` : '';
  const req: InjectOptions = { method, url: url + qs };
  if (verb.multipart) {
    const [type, payload] = verb.multipart(ids);
    req.headers = { 'content-type': type };
    req.payload = payload;
  } else if (verb.body) req.payload = verb.body(ids, w) as Record<string, unknown>;
  return req;
}

/** The ids with the resource's own replaced by missing ones; mapped names (`snUnbind` for :sn) go missing too. */
function missingIds(type: ResourceType, verb: Verb, ids: Ids): Ids {
  const out: Ids = { ...ids, ...type.missing };
  for (const [param, from] of Object.entries(verb.params ?? {}))
    if (type.missing[param] !== undefined) out[from] = type.missing[param]!;
  return out;
}

async function send(caller: Caller, verb: Verb, req: InjectOptions): Promise<Answer> {
  return answerOf(await t.app.inject(caller.authorize(req, verb)));
}

const isOpen = (verb: Verb) => {
  const [method, path] = verb.route.split(' ') as [string, string];
  return openRouteScope(method, path) !== undefined;
};

function rightOf(caller: Caller, type: ResourceType): Right {
  if (!caller.share || !type.sharedAs) return 'none';
  return type.sharedAs(caller.share);
}

/** What `caller` should get from `verb`: a pass, a fixed code, or "as if it did not exist". */
function expectation(caller: Caller, type: ResourceType, verb: Verb): 'pass' | 'hidden' | number {
  const right = rightOf(caller, type);
  if (RANK[right] >= RANK[verb.need as Need]) return 'pass';
  if (right !== 'none') return verb.seenRefusal === 'hidden' ? 'hidden' : (verb.seenRefusal ?? 10108);
  return 'hidden';
}

function leaksIn(typeName: string, body: string, req: InjectOptions): string | undefined {
  const asked = `${String(req.url)} ${req.payload && !Buffer.isBuffer(req.payload) ? JSON.stringify(req.payload) : ''}`;
  return (secrets.get(typeName) ?? []).find((s) => body.includes(s) && !asked.includes(s));
}

/** One refused (or fixed-answer) cell: the call on the owner's resource against the same call on a missing one. */
async function refusedCell(caller: Caller, type: ResourceType, verb: Verb, mode: 'direct' | 'cross') {
  const ids = inst.get(type.name)!;
  let real: InjectOptions;
  let missing: InjectOptions;
  if (mode === 'cross') {
    // The stranger's own parent with the owner's child, against their own parent with a missing child.
    const mixed: Ids = { ...ids.a, [verb.cross!]: ids.b[verb.cross!]! };
    real = requestOf(verb, mixed, worldB);
    missing = requestOf(
      verb,
      { ...missingIds(type, verb, ids.a), [verb.cross!]: ids.b[verb.cross!]! },
      worldB,
    );
  } else {
    real = requestOf(verb, ids.a, worldA);
    missing = requestOf(verb, missingIds(type, verb, ids.a), worldA);
  }
  const got = await send(caller, verb, real);
  const none = await send(caller, verb, missing);
  tally.cells += 1;
  tally.verbs.add(verb.route);
  tally.actors.add(caller.name);
  const where = `${caller.name}${mode === 'cross' ? ' (cross)' : ''} ${verb.route}`;
  const fixed = caller.fixed?.(verb);
  const want = fixed ? fixed.code : mode === 'cross' ? 'hidden' : expectation(caller, type, verb);
  if (want === 'pass') throw new Error(`${where}: a pass is no refusal cell`);

  const seen = `${got.status}/${got.code}`;
  tally.answers.set(seen, (tally.answers.get(seen) ?? 0) + 1);
  const leaked = leaksIn(type.name, got.body, real);
  if (leaked) tally.leaks.push(`${where}: the answer carries "${leaked}": ${say(got)}`);
  if (verb.bulk) {
    // Ids that are not the caller's are ignored: the very answer the missing ids get.
    if (got.body !== none.body || got.status !== none.status)
      tally.mismatches.push(`${where}: ${say(got)} but for a missing id ${say(none)}`);
    return;
  }
  if (got.status < 300) {
    tally.leaks.push(`${where}: ${say(got)} without the right`);
    return;
  }
  if (want === 'hidden' || fixed) {
    if (got.status !== none.status || got.code !== none.code)
      tally.mismatches.push(`${where}: ${say(got)} but for a missing id ${say(none)}`);
  }
  if (fixed && (got.code !== fixed.code || got.status !== fixed.status))
    tally.wrong.push(`${where}: want ${fixed.status}/${fixed.code}, got ${say(got)}`);
  if (typeof want === 'number' && !fixed && got.code !== want)
    tally.wrong.push(`${where}: want ${want}, got ${say(got)}`);
  if (want === 'hidden' && !fixed && !RIGHTS_CODES.has(got.code) && got.code !== none.code)
    tally.wrong.push(`${where}: not a refusal ${say(got)}`);
}

/** A call the caller may make (the owner's, or a share holder's the docs allow): it must work. */
async function allowedCell(caller: Caller, type: ResourceType, verb: Verb) {
  const ids = inst.get(type.name)!;
  const got = await send(caller, verb, requestOf(verb, ids.a, worldA));
  const none = await send(caller, verb, requestOf(verb, missingIds(type, verb, ids.a), worldA));
  tally.cells += 1;
  tally.verbs.add(verb.route);
  tally.actors.add(caller.name);
  const ok =
    got.status < 300 ||
    (verb.ownerMay?.includes(got.code) &&
      !RIGHTS_CODES.has(got.code) &&
      (got.status !== none.status || got.code !== none.code));
  // A share reads the device and its product, never their secrets (the device secret, the product secret).
  if (caller.share) {
    const secret = ownerOnly.find((x) => got.body.includes(x));
    if (secret) tally.leaks.push(`${caller.name} ${verb.route}: shows the owner's secret ${secret}`);
  }
  if (!ok)
    tally.failedControls.push(
      `${caller.name} ${verb.route}: ${say(got)} (missing: ${none.status}/${none.code})`,
    );
}

async function snapshotOf(type: ResourceType, token: string): Promise<string> {
  const ids = inst.get(type.name)!.a;
  const parts: string[] = [];
  for (const url of type.snapshot(ids)) {
    const res = await t.inject({ method: 'GET', url, token });
    parts.push(`${url} ${res.statusCode} ${res.body}`);
  }
  return parts.join('\n');
}

/** Every string of at least 8 characters in a JSON value (names, keys, secrets, serials). */
function stringsOf(value: unknown, out: Set<string>): Set<string> {
  if (typeof value === 'string') {
    if (value.length >= 8 && !/^\d{4}-\d\d-\d\dT/.test(value)) out.add(value);
  } else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

// --- the fixture: people, their devices and keys ---------------------------------------------------------

/** A local listener that answers 200 to every forwarding test-send, allowed as an outbound target. */
async function startHook(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  allowTestTarget(url);
  useForwardTarget(url);
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let phoneSeq = 0;
const nextPhone = () => `1371234${String(1000 + phoneSeq++).padStart(4, '0')}`;

/** A registered user with a phone (for keys and SMS contacts). */
async function person(): Promise<Person> {
  const u = await t.createUser();
  const phone = nextPhone();
  await givePhone(t, u.token, phone);
  return { ...u, phone };
}

/** The world of one person: products and devices, a queued command, a data template. */
async function buildWorld(
  k: Kit,
  p: Person,
  tag: string,
  friend: string,
  /** Only what the cross calls' parents need (no gateway, sub-device or OTA product). */
  lite = false,
): Promise<World> {
  const sn = `RM${tag}MAIN01`;
  const snUnbind = `RM${tag}UNBIND1`;
  const snDelete = `RM${tag}DELETE1`;
  const snEdge = `RM${tag}EDGE01`;
  const [main] = await createDevices(t, p.token, [sn, snUnbind, snDelete, snEdge], {
    name: `rm-${tag}-product`,
    properties: [{ key: 'temp', name: 'Temperature', unit: 'C' }],
  });
  const gatewaySn = `RM${tag}GATEWAY1`;
  const subSn = `RM${tag}SUBDEV01`;
  const otaSn = `RM${tag}OTA001`;
  let ota = { productKey: '', versionId: 0 };
  if (!lite) {
    await createDevices(t, p.token, [gatewaySn], { name: `rm-${tag}-gw`, nodetype: 'gateway' });
    await createDevices(t, p.token, [subSn], { name: `rm-${tag}-sub`, nodetype: 'sub_device' });
    ota = await otaFixture(t, p.token, k.admin, [otaSn], { size: 1024 });
  }
  const command = await k.ok<{ id: number }>(p.token, {
    method: 'POST',
    url: `/api/devices/${sn}/commands`,
    payload: { type: 'string', data: 'queued', offline: 'queue' },
  });
  let groupCommandId = 0;
  if (!lite) {
    const group = await k.ok<{ id: number }>(k.admin, {
      method: 'POST',
      url: '/api/command-groups',
      payload: { product_key: main!.productKey, name: `rm-${tag}-group` },
    });
    const cmd = await k.ok<{ id: number }>(k.admin, {
      method: 'POST',
      url: `/api/command-groups/${group.id}/commands`,
      payload: { name: `rm-${tag}-predefined`, type: 'string', data: 'x' },
    });
    groupCommandId = cmd.id;
  }
  const tpl = await k.ok<{ id: number }>(p.token, {
    method: 'POST',
    url: '/api/data-templates',
    payload: { name: `rm-${tag}-data-template`, type: 'modbus_rtu' },
  });
  const slave = await k.ok<{ id: number }>(p.token, {
    method: 'POST',
    url: `/api/data-templates/${tpl.id}/slaves`,
    payload: { name: 's', address: 1 },
  });
  await k.ok(p.token, {
    method: 'POST',
    url: `/api/data-templates/${tpl.id}/slaves/${slave.id}/variables`,
    payload: { name: 'T', tag: 'temp', register_type: 'holding', register_address: 1, data_format: 'int16' },
  });
  return {
    person: p,
    tag,
    productKey: main!.productKey,
    sn,
    snUnbind,
    snDelete,
    snEdge,
    gatewaySn,
    subSn,
    otaProductKey: ota.productKey,
    otaSn,
    versionId: ota.versionId,
    commandId: command.id,
    groupCommandId,
    dataTemplateId: tpl.id,
    friend,
  };
}

/** A key of a person with every scope. */
const keyWithEveryScope = (p: Person): Promise<KeyPair> =>
  verifiedKey(t, p.token, p.phone, { name: 'rm all', scopes: [...ACCESS_SCOPES] });

/** Keys of a person: one with every scope, and for each scope one with all the others. */
async function keysOf(p: Person): Promise<{ all: KeyPair; without: Record<string, KeyPair> }> {
  const all = await keyWithEveryScope(p);
  const without: Record<string, KeyPair> = {};
  for (const scope of ACCESS_SCOPES)
    without[scope] = await verifiedKey(t, p.token, p.phone, {
      name: `rm no ${scope}`,
      scopes: ACCESS_SCOPES.filter((s) => s !== scope),
    });
  return { all, without };
}

/** The list of a type never shows the owner's row to a caller who may not read it, and shows it to one who may. */
async function listCells(type: ResourceType) {
  const ids = inst.get(type.name)!.a;
  const url = type.list!.url(ids);
  const marker = type.list!.marker(ids);
  const listVerb: Verb = { route: `GET ${url.split('?')[0]}`, need: 'view' };
  for (const caller of callers) {
    if (caller.openRoutesOnly && !isOpen(listVerb)) continue;
    const res = answerOf(await t.app.inject(caller.authorize({ method: 'GET', url }, listVerb)));
    tally.cells += 1;
    const sees =
      RANK[rightOf(caller, type)] >= RANK.view && !caller.fixed && type.list!.sharesListed !== false;
    if (!sees && res.body.includes(marker))
      tally.leaks.push(`${caller.name} ${listVerb.route}: lists the owner's ${marker}`);
    if (sees && !res.body.includes(marker))
      tally.failedControls.push(`${caller.name} ${listVerb.route}: does not list ${marker}`);
  }
}

beforeAll(async () => {
  // Before the app: its outbound connection pool is made for the allow list it starts with.
  const hook = await startHook();
  closeHook = hook.close;
  t = await buildTestApp();
  admin = await t.adminToken();
  const call = (token: string, req: InjectOptions) => t.inject({ ...req, token });
  k = {
    admin,
    async ok<T>(token: string, req: InjectOptions) {
      const res = await call(token, req);
      if (res.statusCode !== 200)
        throw new Error(`fixture ${req.method} ${req.url}: ${res.statusCode} ${res.body}`);
      return (res.json() as { data: T }).data;
    },
    simCard: async (uid) => createCard(t, admin, { provider_id: await manualProvider(t, admin), uid }),
    simPackage: (price) => createPackage(t, admin, { price_fen: price }),
    topup: (uid, fen) => topup(t, admin, uid, fen),
    report: async (sn, params) => report(t, await deviceRef(t, sn), params),
  };
  A = await person();
  B = await person();
  const [V, C, E, F] = [await person(), await person(), await person(), await person()];

  // The friend shares a device with A and B (an inbox message each).
  await createDevices(t, F.token, ['RMFRIEND01']);
  for (const p of [A, B])
    await k.ok(F.token, {
      method: 'POST',
      url: '/api/shares',
      payload: { sns: ['RMFRIEND01'], to: p.username, right: 'view' },
    });

  worldA = await buildWorld(k, A, 'A', F.username);
  worldB = await buildWorld(k, B, 'B', F.username, true);
  await k.ok(A.token, {
    method: 'POST',
    url: '/api/shares',
    payload: { sns: [worldA.snEdge], to: F.username, right: 'view' },
  });
  const shared = [worldA.sn, worldA.snUnbind, worldA.snDelete, worldA.gatewaySn];
  const share = (to: Person, right: Share, expires_at?: string) =>
    k.ok(A.token, {
      method: 'POST',
      url: '/api/shares',
      payload: { sns: shared, to: to.username, right, expires_at },
    });
  await share(V, 'view');
  await share(C, 'control');
  await share(E, 'control', new Date(Date.now() + 3_600_000).toISOString());
  await t.app.deps.db.execute(
    sql`update device_shares set expires_at = now() - interval '1 second' where grantee_uid = ${E.uid}`,
  );

  for (const sn of shared) {
    const d = await k.ok<{ secret: string }>(A.token, { method: 'GET', url: `/api/devices/${sn}` });
    ownerOnly.push(d.secret);
  }
  const product = await k.ok<{ product_secret: string }>(A.token, {
    method: 'GET',
    url: `/api/products/${worldA.productKey}`,
  });
  ownerOnly.push(product.product_secret);
  if (ownerOnly.some((x) => typeof x !== 'string' || x.length < 8))
    throw new Error('the owner sees no secrets');

  keysA = await keysOf(A);
  keyB = await keyWithEveryScope(B);

  for (const type of RESOURCE_TYPES) {
    const a = await type.create(k, worldA);
    // The stranger's own instance: the parent of the cross calls.
    const b = type.verbs.some((v) => v.cross) ? await type.create(k, worldB) : {};
    inst.set(type.name, { a, b });
  }
  for (const type of RESOURCE_TYPES) {
    const snap = await snapshotOf(type, A.token);
    before.set(type.name, snap);
    const found = new Set<string>([`rm-${worldA.tag}-`]);
    for (const line of snap.split('\n')) {
      const body = line.slice(line.indexOf('{'));
      try {
        stringsOf(JSON.parse(body), found);
      } catch {
        // a non-JSON answer has no fields to look for
      }
    }
    secrets.set(type.name, [...found]);
  }

  const keyFor = (keys: { all: KeyPair; without: Record<string, KeyPair> }) => (verb: Verb) => {
    const [method, path] = verb.route.split(' ') as [string, string];
    const scope = openRouteScope(method, path);
    return scope ? keys.without[scope]! : keys.all;
  };
  const noScope = keyFor(keysA);
  let currentVerb: Verb | undefined;
  const refused10227 = (verb: Verb) => (verb.multipart ? undefined : { code: 10227, status: 400 });
  callers.push(
    { name: 'stranger', authorize: bearer(() => B.token), crossing: true },
    { name: 'view share', share: 'view', authorize: bearer(() => V.token) },
    { name: 'control share', share: 'control', authorize: bearer(() => C.token) },
    { name: 'expired share', authorize: bearer(() => E.token) },
    {
      name: 'key without scope',
      fixed: refused10227,
      authorize: (req, verb) => {
        currentVerb = verb;
        return signedWith(() => noScope(currentVerb!))(req);
      },
    },
    {
      // Every scope, but the stranger's: it never gets more than its holder (on the routes keys may call; the
      // others answer 10227 to every key, which the key without scope shows).
      name: 'stranger key',
      openRoutesOnly: true,
      authorize: signedWith(() => keyB),
    },
  );
}, BUDGET_MS);

afterAll(async () => {
  await closeHook?.();
  await t?.close();
});

/** The problems found since `mark` (each test asserts its own, the figures count them all). */
const since = (mark: ReturnType<typeof marks>) => ({
  leaks: tally.leaks.slice(mark.leaks),
  mismatches: tally.mismatches.slice(mark.mismatches),
  wrongRefusals: tally.wrong.slice(mark.wrong),
  failedControls: tally.failedControls.slice(mark.failedControls),
});
const marks = () => ({
  leaks: tally.leaks.length,
  mismatches: tally.mismatches.length,
  wrong: tally.wrong.length,
  failedControls: tally.failedControls.length,
});
const NONE = { leaks: [], mismatches: [], wrongRefusals: [], failedControls: [] };
let started = 0;

describe('the rights matrix', () => {
  it(
    'answers every caller without a right as if the resource did not exist, and leaks nothing',
    async () => {
      started = Date.now();
      const mark = marks();
      for (const type of RESOURCE_TYPES) {
        for (const verb of type.verbs) {
          for (const caller of callers) {
            if (caller.openRoutesOnly && !isOpen(verb)) continue;
            const want = caller.fixed?.(verb) ? 'fixed' : expectation(caller, type, verb);
            if (want !== 'pass') await refusedCell(caller, type, verb, 'direct');
            if (caller.crossing && verb.cross) await refusedCell(caller, type, verb, 'cross');
          }
        }
        if (type.list) await listCells(type);
      }
      expect(since(mark)).toEqual(NONE);
    },
    BUDGET_MS,
  );

  it(
    "refuses the owner's token and key once an admin disabled the account",
    async () => {
      const mark = marks();
      const disabled = await t.inject({ method: 'PUT', url: `/api/users/${A.uid}/disable`, token: admin });
      expect(disabled.statusCode, disabled.body).toBe(200);
      const oldToken = A.token;
      const gone: Caller[] = [
        {
          name: 'disabled owner',
          fixed: () => ({ code: 10102, status: 403 }),
          authorize: bearer(() => oldToken),
        },
        {
          name: 'disabled owner key',
          fixed: (verb) => (verb.multipart ? undefined : { code: 10103, status: 400 }),
          authorize: signedWith(() => keysA.all),
        },
      ];
      for (const type of RESOURCE_TYPES)
        for (const verb of type.verbs)
          for (const caller of gone) await refusedCell(caller, type, verb, 'direct');
      const enabled = await t.inject({ method: 'PUT', url: `/api/users/${A.uid}/enable`, token: admin });
      expect(enabled.statusCode, enabled.body).toBe(200);
      A.token = (await t.login(A.username, USER_PASSWORD)).token;
      expect(since(mark)).toEqual(NONE);
    },
    BUDGET_MS,
  );

  it('left every resource as it was: no refused call took effect', async () => {
    const mark = marks();
    for (const type of RESOURCE_TYPES) {
      const after = await snapshotOf(type, A.token);
      if (after !== before.get(type.name)) {
        const was = before.get(type.name)!.split('\n');
        const diff = after.split('\n').filter((l, i) => l !== was[i]);
        tally.leaks.push(`${type.name}: changed by a refused call: ${diff.join(' | ').slice(0, 400)}`);
      }
    }
    expect(since(mark)).toEqual(NONE);
  });

  it(
    'lets the owner, and a share holder where docs/sharing.md says so, make every call (the positive control)',
    async () => {
      const mark = marks();
      // The types that hang on others first, so the owner's deletes do not pull a parent from under a child.
      const owner: Caller = { name: 'owner', authorize: bearer(() => A.token) };
      for (const type of [...RESOURCE_TYPES].reverse()) {
        for (const verb of type.verbs) {
          for (const caller of callers)
            if (!caller.fixed?.(verb) && expectation(caller, type, verb) === 'pass')
              await allowedCell(caller, type, verb);
          await allowedCell(owner, type, verb);
        }
      }
      expect(since(mark)).toEqual(NONE);
    },
    BUDGET_MS,
  );

  it('prints its figures', () => {
    const resourceTypes = RESOURCE_TYPES.length;
    const detail = `${resourceTypes} types, ${tally.verbs.size} verb routes, ${tally.actors.size} callers`;
    figure({
      name: 'rights.resource_types',
      value: resourceTypes,
      unit: 'count',
      detail: `user-owned types, one real instance each (${ADMIN_ONLY_NOTE})`,
    });
    figure({
      name: 'rights.verbs',
      value: tally.verbs.size,
      unit: 'count',
      detail: 'route keys called on an instance',
    });
    figure({
      name: 'rights.actors',
      value: tally.actors.size,
      unit: 'count',
      detail: [...tally.actors].join(', '),
    });
    figure({
      name: 'rights.cells',
      value: tally.cells,
      unit: 'calls',
      detail:
        `${detail}; each refusal also made on a missing id; ${Math.round((Date.now() - started) / 1000)} s; ` +
        `refusals answered ${[...tally.answers].map(([a, n]) => `${a} x${n}`).join(', ')}`,
    });
    figure({
      name: 'rights.leaks',
      value: tally.leaks.length,
      unit: 'count',
      target: '0',
      detail:
        tally.leaks.slice(0, 3).join(' || ') ||
        '2xx without a right, owner fields in a refusal, refused changes',
    });
    figure({
      name: 'rights.not_found_mismatches',
      value: tally.mismatches.length,
      unit: 'count',
      target: '0',
      detail: tally.mismatches.slice(0, 3).join(' || ') || 'every refusal answered like a missing id',
    });
    expect(tally.cells).toBeGreaterThan(0);
  });
});
