import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccessQuestion, ROUTE_ACCESS, takeAccessQuestions, traceAccessQuestions } from './lib/authz';
import { buildTestApp, errorOf, type TestApp } from './test/app';

/**
 * Every route asks the authorisation layer (lib/authz.ts). The door: each /api route has an access the layer knows
 * and enforces. The rooms: a signed-in user's call to each `user` route must reach its handler and the handler must
 * ask the layer a question about rows (owner, device, admin, scope, or "acting on self"): a new route whose service
 * forgets the check fails here. Routes whose schema needs input get a minimal valid request below.
 */

/** Values for path parameters, by name (valid for the schemas; the rows do not exist or are not the caller's). */
const PARAMS: Record<string, string> = {
  id: '999999',
  sn: 'SN0000000000001',
  product_key: 'pk0000000000000000',
  key: 'temp',
  tag: 'temp',
  iccid: '89860000000000000000',
  ticket: 'abc',
  token: 'abc',
  version_id: '999999',
  device_id: '999999',
  ak: 'AKAAAAAAAAAAAAAAAAAAAA',
  version: '1',
};

/** A valid request for routes whose schema needs more than the path (keyed `METHOD /api/path/{param}`). */
const SN = PARAMS.sn!;
const targets = { type: 'list', sns: [SN] };
const BOUNDARY = 'authz-routes-boundary';
const INPUT: Record<string, Pick<InjectOptions, 'payload' | 'query' | 'headers'>> = {
  'PUT /api/user/password': {
    payload: { old_password: 'wrong-old', new_password: 'NewPass123', confirm_password: 'NewPass123' },
  },
  'PUT /api/user/phone': { payload: { phone: '13800000000', captcha: '000000' } },
  'PUT /api/user/profile': { payload: { nickname: 'n' } },
  'POST /api/products': { payload: { name: 'P' } },
  'PUT /api/products/{product_key}': { payload: { name: 'P' } },
  'POST /api/products/{product_key}/properties': { payload: { key: 'temp', name: 'T' } },
  'PUT /api/products/{product_key}/properties/{key}': { payload: { key: 'temp', name: 'T' } },
  'PUT /api/products/{product_key}/platform-credentials': {
    payload: { items: [{ sn: SN, device_secret: 's' }] },
  },
  'POST /api/devices': { payload: { product_key: PARAMS.product_key, sn: [SN] } },
  'PUT /api/devices/{sn}': { payload: { name: 'D' } },
  'POST /api/devices/bind': { payload: { sn: SN, secret: 's' } },
  'POST /api/devices/import': {
    query: { product_key: PARAMS.product_key! },
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload:
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="d.csv"\r\n` +
      `Content-Type: text/csv\r\n\r\nsn\r\n${PARAMS.sn}\r\n--${BOUNDARY}--\r\n`,
  },
  'POST /api/devices/{sn}/commands': { payload: { type: 'string', data: 'x' } },
  // No body: the path alone ({id} '999999' is a valid command id) reaches the device check.
  'POST /api/devices/{sn}/commands/{id}/cancel': {},
  'PUT /api/devices/{sn}/config': { payload: { config: {} } },
  'POST /api/devices/{sn}/tunnels': { payload: { name: 'T', local_ip: '10.0.0.1', local_port: 80 } },
  'GET /api/devices/{sn}/properties/series': { query: { key: 'temp', range: '1h' } },
  'POST /api/devices/{sn}/raw': { payload: { data: 'aa', encoding: 'hex' } },
  'POST /api/devices/{sn}/modbus/variables/{tag}/write': { payload: { value: 1 } },
  'POST /api/user-commands': { payload: { name: 'C', type: 'string', data: 'x' } },
  'PUT /api/user-commands/{id}': { payload: { name: 'C' } },
  'POST /api/user-commands/{id}/send': { payload: { sns: [SN] } },
  'POST /api/config-templates': { payload: { name: 'T', config: { global: { apn: { name: 'cmnet' } } } } },
  'PUT /api/config-templates/{id}': { payload: { name: 'T' } },
  'POST /api/config-templates/{id}/apply': { payload: { sns: [SN] } },
  'POST /api/orders': { payload: { package_id: 999999, iccids: [PARAMS.iccid] } },
  'POST /api/ota/tasks/preview': {
    payload: { product_key: PARAMS.product_key, version_id: 999999, targets },
  },
  'POST /api/ota/tasks': {
    payload: { name: 'T', product_key: PARAMS.product_key, version_id: 999999, targets },
  },
  'POST /api/alert/triggers': { payload: { name: 'T', type: 1, sn: SN, key: 'temp' } },
  'PUT /api/alert/triggers/{id}': { payload: { name: 'T', type: 1, sn: SN, key: 'temp' } },
  'PUT /api/alert/triggers/{id}/enable': { payload: { enable: 1 } },
  'POST /api/alert/configs': { payload: { name: 'C' } },
  'PUT /api/alert/configs/{id}': { payload: { name: 'C' } },
  'POST /api/alert/contacts': { payload: { name: 'C', phone: '13800000000' } },
  'PUT /api/alert/contacts/{id}': { payload: { name: 'C', phone: '13800000000' } },
  'POST /api/alert/contacts/{id}/code': { payload: { channel: 'sms' } },
  'POST /api/alert/contacts/{id}/verify': { payload: { channel: 'sms', code: '000000' } },
  'POST /api/alert/history/ack': { payload: { ids: [999999] } },
  'POST /api/inbox/read': { payload: { ids: [999999] } },
  'POST /api/shares': { payload: { sns: [SN], to: 'nobody', right: 'view' } },
  'PUT /api/shares/{id}': { payload: { right: 'view' } },
  'POST /api/share-links': { payload: { sns: [SN], right: 'view' } },
  'POST /api/devices/{sn}/command-groups/commands/{cmdId}/send': { payload: { params: {} } },
  'POST /api/data-templates': { payload: { name: 'T' } },
  'PUT /api/data-templates/{id}': { payload: { name: 'T' } },
  'POST /api/data-templates/{id}/copy': { payload: {} },
  'POST /api/data-templates/{id}/slaves': { payload: { name: 'S', address: 1 } },
  'PUT /api/data-templates/{id}/slaves/{slaveId}': { payload: { name: 'S' } },
  'POST /api/data-templates/{id}/slaves/{slaveId}/variables': {
    payload: { name: 'T', tag: 'temp', register_type: 'holding', register_address: 1, data_format: 'int16' },
  },
  'PUT /api/data-templates/{id}/variables/{varId}': { payload: { name: 'T' } },
  'POST /api/data-templates/{id}/devices': { payload: { sns: [SN] } },
  'PUT /api/devices/{sn}/data-template': { payload: { template_id: 999999 } },
  'PUT /api/products/{product_key}/data-template': { payload: { template_id: 999999 } },
  'POST /api/scene-models': { payload: { name: 'M' } },
  'PUT /api/scene-models/{id}': { payload: { name: 'M' } },
  'POST /api/scene-models/{id}/copy': { payload: {} },
  'POST /api/scene-models/import': { payload: { file: {} } },
  'POST /api/scenes': { payload: { name: 'S' } },
  'PUT /api/scenes/{id}': { payload: { name: 'S' } },
  'POST /api/scenes/{id}/copy': { payload: {} },
  'POST /api/scenes/import': { payload: { file: {} } },
  'POST /api/scenes/from-model': { payload: { model_id: 999999, name: 'S', bindings: {} } },
  'POST /api/scenes/{id}/widgets/{widgetId}/write': { payload: { value: 1 } },
  'POST /api/forwarding': {
    payload: { name: 'F', kinds: ['property'], target: { kind: 'http', url: 'http://8.8.8.8/hook' } },
  },
  'PUT /api/forwarding/{id}': {
    payload: { name: 'F', kinds: ['property'], target: { kind: 'http', url: 'http://8.8.8.8/hook' } },
  },
  'PUT /api/forwarding/{id}/enabled': { payload: { enabled: true } },
  'POST /api/forwarding/{id}/test': { payload: {} },
  'POST /api/forwarding/{id}/dead/replay': { payload: {} },
  'POST /api/scenes/{id}/shares': { payload: { to: 'nobody' } },
  'POST /api/scenes/{id}/images': {
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload:
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="b.png"\r\n` +
      `Content-Type: image/png\r\n\r\nnot a png\r\n--${BOUNDARY}--\r\n`,
  },
  'GET /api/gateway-rules/candidates': { query: { nodetype: 'gateway' } },
  'POST /api/gateway-rules': { payload: { name: 'R', gateway_sn: SN } },
  'PUT /api/gateway-rules/{id}': { payload: { name: 'R' } },
  'POST /api/gateway-rules/{id}/bind': { payload: { sub_devices: [{ sn: SN }] } },
  'POST /api/gateway-rules/{id}/unbind': { payload: { sns: [SN] } },
  'POST /api/data-transmit': { payload: { name: 'R', management: [SN], edge: [{ sn: 'SN0000000000002' }] } },
  'PUT /api/data-transmit/{id}': {
    payload: { name: 'R', management: [SN], edge: [{ sn: 'SN0000000000002' }] },
  },
  'PUT /api/data-transmit/{id}/status': { payload: { status: 0 } },
  'POST /api/scripts': { payload: { name: 'S', source: 'function decode() {}' } },
  'POST /api/scripts/test-run': { payload: { source: 'function decode() { return {}; }' } },
  'PUT /api/scripts/{id}': { payload: { name: 'S' } },
  'PUT /api/scripts/{id}/state': { payload: { enabled: false } },
  'PUT /api/scripts/{id}/binding': { payload: { product_key: PARAMS.product_key } },
  'POST /api/access-keys': { payload: { name: 'K', scopes: ['devices:read'] } },
  'PUT /api/access-keys/{ak}': { payload: { name: 'K' } },
  'POST /api/access-keys/{ak}/verify-code': { payload: { channel: 'sms' } },
  'POST /api/access-keys/{ak}/verify': { payload: { code: '000000' } },
};

let t: TestApp;
let user: { uid: number; token: string };

beforeAll(async () => {
  t = await buildTestApp();
  user = await t.createUser();
  traceAccessQuestions(true);
});
afterAll(async () => {
  traceAccessQuestions(false);
  await t.close();
});

/** `METHOD /api/a/{b}` (OpenAPI) from `METHOD /api/a/:b` (Fastify). */
const openApiKey = (key: string) => key.replace(/:(\w+)/g, '{$1}');
const routes = () =>
  [...t.app.routeAccess.entries()].map(([key, access]) => ({ key: openApiKey(key), access }));

const LOGOUT = 'POST /api/auth/logout';
const ROW_QUESTIONS: AccessQuestion[] = ['admin', 'device', 'owner', 'scope', 'self', 'catalogue'];

describe('the authorisation layer', () => {
  it('knows the access of every documented route', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    const known = routes();
    expect(known.map((r) => r.key).sort()).toEqual(documented.sort());
    for (const r of known) expect(ROUTE_ACCESS).toContain(r.access);
  });

  it('is asked by every signed-in route, and by its handler about rows', async () => {
    const problems: string[] = [];
    // Signing out ends the session the other calls use: it goes last.
    const ordered = routes().sort((a, b) => Number(a.key === LOGOUT) - Number(b.key === LOGOUT));
    for (const { key, access } of ordered) {
      if (access === 'public' || access === 'optional') continue;
      const [method, path] = key.split(' ') as [InjectOptions['method'], string];
      const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => PARAMS[name] ?? '1');
      takeAccessQuestions(user.uid);
      const res = await t.inject({ method, url, token: user.token, ...INPUT[key] });
      const asked = takeAccessQuestions(user.uid);
      const code = res.statusCode >= 400 ? errorOf(res).code : 0;
      if (!asked.has('route')) problems.push(`${key}: the door did not ask the layer`);
      if (access === 'admin') {
        if (code !== 10108 || !asked.has('admin')) problems.push(`${key}: admin route answered ${code}`);
        continue;
      }
      if (code === 10113 && !ROW_QUESTIONS.some((q) => asked.has(q))) {
        problems.push(`${key}: rejected as input (${res.body}); add a valid request to INPUT`);
      } else if (!ROW_QUESTIONS.some((q) => asked.has(q))) {
        problems.push(`${key}: the handler answered ${res.statusCode} without asking the layer`);
      }
    }
    expect(problems).toEqual([]);
  });
});
