/**
 * The device rights table (issue 14): every route that touches a device, what right it needs, and how to call it.
 * device-rights-matrix.test.ts runs it for owner, share holders, stranger and admin; a route that names a device
 * (an `{sn}` in its path, or `sn`/`sns`/`targets` in its body or query, or anything under /api/devices) and has no
 * row here fails that test.
 *
 * Extension point for other callers (access keys): a `MatrixCaller` is a name, the right the caller should end up
 * with (`none` | `view` | `control` | `owner` | `admin`) and `authorize(request)`, which adds the caller's
 * credentials to a request (a bearer token, or signed access-key headers). Push a `CallerFactory` onto
 * `MORE_CALLERS` (below): the matrix calls it with the app and the people of its fixture (the devices' owner, a
 * view-share holder, a control-share holder), after the shares exist, and runs every row for the callers it returns.
 * Each row's expectation follows from the caller's right alone (`expected(rule, right)`): a key of the owner with
 * `devices:read` is `view`, with `devices:control` is `control`, with no device scope is `none`.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app';

export type MatrixRight = 'none' | 'view' | 'control' | 'owner' | 'admin';

/**
 * - `read`: view and up succeed; none answers 10117 (as missing).
 * - `control`: control and up; view answers 10108; none 10117.
 * - `manage`: owner and admin (edit, delete, unbind); view and control 10108; none 10117.
 * - `share`: owner and admin; everyone else 10210 (sharing is never a share holder's).
 * - `owner-only`: owner and admin succeed; every other caller gets exactly the stranger's answer (OTA: shares
 *   never reach a rollout).
 * - `no-gain`: nobody but the admin is expected to succeed (creating, binding or importing a device someone
 *   owns); a share holder's answer is exactly the stranger's.
 * - `list`: the device is in the caller's list from view up, and not below.
 * - `bulk`: a per-device result in the answer: `deviceCode(res)` is 10117 for none, 10108 for view on a control
 *   route (`need`), and neither from the needed right up.
 */
export type RouteRule =
  | { kind: 'read' | 'control' | 'manage' | 'share' | 'owner-only' | 'no-gain' }
  | { kind: 'list'; contains: (res: LightMyRequestResponse, sn: string) => boolean }
  | {
      kind: 'bulk';
      need: 'view' | 'control';
      /** The code the answer gives for the device: 10117 unseen, 10108 not allowed, anything else passed. */
      deviceCode: (res: LightMyRequestResponse, sn: string) => number;
    };

/** The devices and ids a request is built from. `sn` is the row's own device (each row gets fresh ones). */
export interface MatrixContext {
  sn: string;
  productKey: string;
  versionId: number;
  /** A user command / config template / alert trigger of the caller, made by `setup` (0 when none). */
  ownId: number;
  /** A device of the caller (their own), for routes that need one to start from. */
  ownSn: string;
  /** Someone a share can be given to. */
  otherUsername: string;
}

export interface RouteRow {
  rule: RouteRule;
  request: (c: MatrixContext) => Omit<InjectOptions, 'method'>;
  /** Makes what the request needs of the caller's own (`ownId`); run with the caller's credentials. */
  setup?: (
    call: (req: InjectOptions) => Promise<LightMyRequestResponse>,
    c: MatrixContext,
  ) => Promise<number>;
  /** Deletes or gives away the device: run with a device of its own for the admin. */
  destructive?: boolean;
  /** More checks on a passed answer, by right (the device secret is the owner's). */
  check?: (res: LightMyRequestResponse, right: MatrixRight) => void;
}

const BOUNDARY = 'device-rights-boundary';
const json = (res: LightMyRequestResponse) => res.json() as { data?: unknown };
const dataOf = <T>(res: LightMyRequestResponse) => json(res).data as T;
const idOf = (res: LightMyRequestResponse): number => {
  if (res.statusCode !== 200) throw new Error(`setup failed: ${res.body}`);
  return dataOf<{ id: number }>(res).id;
};

const userCommand: RouteRow['setup'] = async (call) =>
  idOf(
    await call({
      method: 'POST',
      url: '/api/user-commands',
      payload: { name: 'matrix', type: 'string', data: 'x' },
    }),
  );
const configTemplate: RouteRow['setup'] = async (call) =>
  idOf(
    await call({
      method: 'POST',
      url: '/api/config-templates',
      payload: { name: 'matrix', config: { global: { apn: { name: 'cmnet' } } } },
    }),
  );
const alertTrigger: RouteRow['setup'] = async (call, c) =>
  idOf(
    await call({
      method: 'POST',
      url: '/api/alert/triggers',
      payload: { name: 'own', type: 1, sn: c.ownSn, key: 'temp', value: 1 },
    }),
  );

const dataTemplate: RouteRow['setup'] = async (call) => {
  const id = idOf(
    await call({
      method: 'POST',
      url: '/api/data-templates',
      payload: { name: 'matrix', type: 'modbus_rtu' },
    }),
  );
  const slave = idOf(
    await call({
      method: 'POST',
      url: `/api/data-templates/${id}/slaves`,
      payload: { name: 's', address: 1 },
    }),
  );
  idOf(
    await call({
      method: 'POST',
      url: `/api/data-templates/${id}/slaves/${slave}/variables`,
      payload: {
        name: 'T',
        tag: 'temp',
        register_type: 'holding',
        register_address: 1,
        data_format: 'int16',
      },
    }),
  );
  return id;
};

/** A scene of the caller with a Modbus set-point bound to the row's device (scenes do not check devices on save). */
const sceneWithControl: RouteRow['setup'] = async (call, c) =>
  idOf(
    await call({
      method: 'POST',
      url: '/api/scenes',
      payload: {
        name: 'Matrix',
        document: {
          format: 'cellhub.scene',
          version: 1,
          canvas: { width: 200, height: 200 },
          widgets: [
            {
              id: 'sp',
              kind: 'setpoint',
              x: 0,
              y: 0,
              w: 10,
              h: 10,
              binding: { sn: c.sn, key: 'temp' },
              write: { mode: 'modbus', tag: 'temp' },
            },
          ],
        },
      },
    }),
  );

/** The table. Keys as Fastify spells routes (`METHOD /api/path/:param`). */
export const DEVICE_ROUTES: Record<string, RouteRow> = {
  'GET /api/devices': {
    rule: {
      kind: 'list',
      contains: (res, sn) => dataOf<{ sn: string }[]>(res).some((d) => d.sn === sn),
    },
    request: (c) => ({ url: '/api/devices', query: { keyword: c.sn } }),
  },
  'POST /api/devices': {
    rule: { kind: 'no-gain' },
    request: (c) => ({ url: '/api/devices', payload: { product_key: c.productKey, sn: [c.sn] } }),
  },
  'GET /api/devices/:sn': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}` }),
    check: (res, right) => {
      const d = dataOf<{ secret?: string }>(res);
      const secretShown = typeof d.secret === 'string' && d.secret.length > 0;
      if (secretShown !== (right === 'owner' || right === 'admin'))
        throw new Error(`device secret ${secretShown ? 'shown' : 'hidden'} for ${right}`);
    },
  },
  'PUT /api/devices/:sn': {
    rule: { kind: 'manage' },
    request: (c) => ({ url: `/api/devices/${c.sn}`, payload: { name: 'renamed' } }),
  },
  'DELETE /api/devices/:sn': {
    rule: { kind: 'manage' },
    destructive: true,
    request: (c) => ({ url: `/api/devices/${c.sn}` }),
  },
  'POST /api/devices/bind': {
    rule: { kind: 'no-gain' },
    request: (c) => ({ url: '/api/devices/bind', payload: { sn: c.sn, secret: 'not-the-secret' } }),
  },
  'POST /api/devices/:sn/unbind': {
    rule: { kind: 'manage' },
    destructive: true,
    request: (c) => ({ url: `/api/devices/${c.sn}/unbind` }),
  },
  'POST /api/devices/import': {
    rule: { kind: 'no-gain' },
    request: (c) => ({
      url: '/api/devices/import',
      query: { product_key: c.productKey },
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload:
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="d.csv"\r\n` +
        `Content-Type: text/csv\r\n\r\nsn,name\r\n${c.sn},taken\r\n--${BOUNDARY}--\r\n`,
    }),
  },
  'POST /api/devices/:sn/commands': {
    rule: { kind: 'control' },
    request: (c) => ({
      url: `/api/devices/${c.sn}/commands`,
      payload: { type: 'string', data: 'x', offline: 'queue' },
    }),
  },
  'GET /api/devices/:sn/commands': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/commands` }),
  },
  'POST /api/devices/:sn/commands/:id/cancel': {
    rule: { kind: 'control' },
    // No such command: a caller with the right gets 10107 from the command lookup, past the device check.
    request: (c) => ({ url: `/api/devices/${c.sn}/commands/999999/cancel` }),
  },
  'GET /api/devices/:sn/config': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/config` }),
  },
  'PUT /api/devices/:sn/config': {
    rule: { kind: 'control' },
    request: (c) => ({ url: `/api/devices/${c.sn}/config`, payload: { config: {} } }),
  },
  'GET /api/devices/:sn/properties': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/properties` }),
  },
  'GET /api/devices/:sn/properties/series': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/properties/series`, query: { key: 'temp', range: '1h' } }),
  },
  'GET /api/devices/:sn/raw': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/raw` }),
  },
  'POST /api/devices/:sn/raw': {
    rule: { kind: 'control' },
    request: (c) => ({ url: `/api/devices/${c.sn}/raw`, payload: { data: 'aa', encoding: 'hex' } }),
  },
  // Remote tunnels (docs/tunnels.md): control right for all of it, the list included (its addresses are live doors
  // into the device's LAN). The matrix device is offline: whoever may open one gets 20401, which is no refusal.
  'GET /api/devices/:sn/tunnels': {
    rule: { kind: 'control' },
    request: (c) => ({ url: `/api/devices/${c.sn}/tunnels` }),
  },
  'POST /api/devices/:sn/tunnels': {
    rule: { kind: 'control' },
    request: (c) => ({
      url: `/api/devices/${c.sn}/tunnels`,
      payload: { name: 'matrix', local_ip: '192.168.1.10', local_port: 80 },
    }),
  },
  'POST /api/devices/:sn/tunnels/:id/close': {
    rule: { kind: 'control' },
    // No such tunnel: a caller with the right gets 88001 from the lookup, past the device check.
    request: (c) => ({ url: `/api/devices/${c.sn}/tunnels/999999/close` }),
  },
  // Predefined commands (command groups): listed and sent only with control right.
  'GET /api/devices/:sn/command-groups': {
    rule: { kind: 'control' },
    request: (c) => ({ url: `/api/devices/${c.sn}/command-groups` }),
  },
  'POST /api/devices/:sn/command-groups/commands/:cmdId/send': {
    rule: { kind: 'control' },
    // No such command: a caller with the right gets 10107 from the command lookup, past the device check.
    request: (c) => ({
      url: `/api/devices/${c.sn}/command-groups/commands/999999/send`,
      payload: { params: {} },
    }),
  },
  'GET /api/devices/:sn/timeline': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/timeline` }),
  },
  'GET /api/devices/:sn/logs': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/logs` }),
  },
  'GET /api/devices/:sn/drops': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/drops` }),
  },
  'GET /api/devices/:sn/events': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/events` }),
  },
  'GET /api/devices/:sn/thing-model': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/thing-model` }),
  },
  'POST /api/user-commands/:id/send': {
    rule: {
      kind: 'bulk',
      need: 'control',
      deviceCode: (res, sn) => {
        const r = dataOf<{ results: { sn: string; code: number | null }[] }>(res).results.find(
          (x) => x.sn === sn,
        );
        return r?.code ?? 0;
      },
    },
    setup: userCommand,
    request: (c) => ({ url: `/api/user-commands/${c.ownId}/send`, payload: { sns: [c.sn] } }),
  },
  'POST /api/config-templates/:id/apply': {
    rule: {
      kind: 'bulk',
      need: 'control',
      // The apply says "not found" for a device not to configure, without telling which: both read as 10117, and
      // a view share must not be configured (10108 is not told apart here).
      deviceCode: (res, sn) =>
        dataOf<{ results: { sn: string; status: string }[] }>(res).results.find((x) => x.sn === sn)
          ?.status === 'not_found'
          ? 10117
          : 0,
    },
    setup: configTemplate,
    request: (c) => ({ url: `/api/config-templates/${c.ownId}/apply`, payload: { sns: [c.sn] } }),
  },
  // Data templates: applied and removed with control right, read with view (docs/data-templates.md).
  'GET /api/devices/:sn/data-template': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/data-template` }),
  },
  'PUT /api/devices/:sn/data-template': {
    rule: { kind: 'control' },
    // No such template: a caller with the right gets 10107 from the template lookup, past the device check.
    request: (c) => ({ url: `/api/devices/${c.sn}/data-template`, payload: { template_id: 999999 } }),
  },
  'DELETE /api/devices/:sn/data-template': {
    rule: { kind: 'control' },
    request: (c) => ({ url: `/api/devices/${c.sn}/data-template` }),
  },
  // Platform polling (docs/modbus-polling.md): status with view; test reads and writes use the bus, control only.
  // The matrix devices have no template: a caller with the right gets 81004, past the device check.
  'GET /api/devices/:sn/modbus/variables': {
    rule: { kind: 'read' },
    request: (c) => ({ url: `/api/devices/${c.sn}/modbus/variables` }),
  },
  'POST /api/devices/:sn/modbus/variables/:tag/read': {
    rule: { kind: 'control' },
    request: (c) => ({ url: `/api/devices/${c.sn}/modbus/variables/temp/read` }),
  },
  'POST /api/devices/:sn/modbus/variables/:tag/write': {
    rule: { kind: 'control' },
    request: (c) => ({ url: `/api/devices/${c.sn}/modbus/variables/temp/write`, payload: { value: 1 } }),
  },
  'POST /api/scenes/:id/widgets/:widgetId/write': {
    rule: { kind: 'control' },
    setup: sceneWithControl,
    request: (c) => ({ url: `/api/scenes/${c.ownId}/widgets/sp/write`, payload: { value: 1 } }),
  },
  'POST /api/data-templates/:id/devices': {
    rule: {
      kind: 'bulk',
      need: 'control',
      deviceCode: (res, sn) =>
        dataOf<{ sn: string; code?: number }[]>(res).find((x) => x.sn === sn)?.code ?? 0,
    },
    setup: dataTemplate,
    request: (c) => ({ url: `/api/data-templates/${c.ownId}/devices`, payload: { sns: [c.sn] } }),
  },
  'POST /api/ota/tasks/preview': {
    rule: { kind: 'owner-only' },
    request: (c) => ({
      url: '/api/ota/tasks/preview',
      payload: { product_key: c.productKey, version_id: c.versionId, targets: { type: 'list', sns: [c.sn] } },
    }),
  },
  'POST /api/ota/tasks': {
    rule: { kind: 'owner-only' },
    request: (c) => ({
      url: '/api/ota/tasks',
      payload: {
        name: 'matrix',
        product_key: c.productKey,
        version_id: c.versionId,
        targets: { type: 'list', sns: [c.sn] },
      },
    }),
  },
  // Alerts: a view share may watch the device (docs/sharing.md).
  'POST /api/alert/triggers': {
    rule: { kind: 'read' },
    request: (c) => ({
      url: '/api/alert/triggers',
      payload: { name: 'matrix', type: 1, sn: c.sn, key: 'temp', value: 1 },
    }),
  },
  'PUT /api/alert/triggers/:id': {
    rule: { kind: 'read' },
    setup: alertTrigger,
    request: (c) => ({
      url: `/api/alert/triggers/${c.ownId}`,
      payload: { name: 'matrix', type: 1, sn: c.sn, key: 'temp', value: 1 },
    }),
  },
  'POST /api/shares': {
    rule: { kind: 'share' },
    request: (c) => ({ url: '/api/shares', payload: { sns: [c.sn], to: c.otherUsername, right: 'view' } }),
  },
  // The matrix device is no gateway: whoever may manage it gets 85002, which is no refusal.
  'POST /api/gateway-rules': {
    rule: { kind: 'manage' },
    request: (c) => ({ url: '/api/gateway-rules', payload: { name: 'Matrix', gateway_sn: c.sn } }),
  },
  'POST /api/share-links': {
    rule: { kind: 'share' },
    request: (c) => ({ url: '/api/share-links', payload: { sns: [c.sn], right: 'view' } }),
  },
  // Forwarding: a rule may name the devices its owner may read, a view share included (docs/forwarding.md).
  // The target is a public literal address: judged when saved, never contacted by these calls.
  'POST /api/forwarding': {
    rule: { kind: 'read' },
    request: (c) => ({
      url: '/api/forwarding',
      payload: {
        name: 'matrix',
        kinds: ['property'],
        sns: [c.sn],
        target: { kind: 'http', url: 'http://8.8.8.8/hook' },
      },
    }),
  },
  'PUT /api/forwarding/:id': {
    rule: { kind: 'read' },
    setup: async (call) =>
      idOf(
        await call({
          method: 'POST',
          url: '/api/forwarding',
          payload: {
            name: 'matrix',
            kinds: ['property'],
            target: { kind: 'http', url: 'http://8.8.8.8/hook' },
          },
        }),
      ),
    request: (c) => ({
      url: `/api/forwarding/${c.ownId}`,
      payload: {
        name: 'matrix',
        kinds: ['property'],
        sns: [c.sn],
        target: { kind: 'http', url: 'http://8.8.8.8/hook' },
      },
    }),
  },
  // Data transmission: a rule carries only devices its owner controls (docs/data-transmit.md).
  'POST /api/data-transmit': {
    rule: { kind: 'control' },
    request: (c) => ({
      url: '/api/data-transmit',
      payload: { name: 'matrix', management: [c.sn], edge: [{ sn: c.ownSn }] },
    }),
  },
};

/**
 * Routes that name a device without acting on one for the caller: lists of the caller's own shares filtered by
 * serial (they show only what the caller shared or received), and the public device page and device registration
 * (no signed-in caller: the device's own token decides).
 */
export const NOT_DEVICE_RIGHTS: Record<string, string> = {
  'GET /api/shares/outgoing': 'the caller\u2019s own shares, filtered by sn',
  'GET /api/shares/incoming': 'shares received by the caller, filtered by sn',
  'GET /api/alert/triggers': 'the caller\u2019s own alert rules, filtered by sn',
  'GET /api/alert/history': 'the caller\u2019s own alert history, filtered by sn',
  'POST /api/gateway-rules/:id/unbind':
    'sns name sub-devices of a rule the caller must manage (its gateway decides); gateway-rules.test.ts',
  'POST /api/scripts/test-run':
    'sn is only a label in the sample context handed to the script; no device is read',
};

/** A route names a device: `{sn}` in its path, under /api/devices, or `sn`/`sns`/`targets` in body or query. */
export function namesADevice(path: string, op: OpenApiOperation): boolean {
  if (path.includes('{sn}') || path === '/api/devices' || path.startsWith('/api/devices/')) return true;
  const names = new Set<string>();
  for (const p of op.parameters ?? []) names.add(p.name);
  const body = op.requestBody?.content?.['application/json']?.schema;
  for (const k of Object.keys(body?.properties ?? {})) names.add(k);
  return ['sn', 'sns', 'targets'].some((n) => names.has(n));
}

export interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

/** Who calls: the right they should end up with on the row's device, and how their credentials go on a request. */
export interface MatrixCaller {
  name: string;
  right: MatrixRight;
  authorize(req: InjectOptions): InjectOptions;
  /** Their own device (for setups that need one). */
  ownSn: string;
  /**
   * The answer a route gives this caller whatever its rule, when it does not depend on the right (an access key
   * on a route it may not call: 10227); undefined to judge by `right`.
   */
  refusal?: (routeKey: string) => number | undefined;
  /** The caller's right on one route when it differs from `right` (a key's `ota` scope: its holder's OTA right). */
  rightOn?: (routeKey: string) => MatrixRight;
  /** Credentials for a row's `setup` (a key's rows are made by its owner in the console), `authorize` if absent. */
  setupAuthorize?: (req: InjectOptions) => InjectOptions;
}

export const bearer =
  (token: string) =>
  (req: InjectOptions): InjectOptions => ({
    ...req,
    headers: { ...req.headers, authorization: `Bearer ${token}` },
  });

const RANK: Record<MatrixRight, number> = { none: 0, view: 1, control: 2, owner: 3, admin: 4 };
const REFUSALS = new Set([10117, 10108, 10210]);

export const codeOf = (res: LightMyRequestResponse): number =>
  res.statusCode === 200 ? 0 : ((res.json() as { code?: number }).code ?? -res.statusCode);

/**
 * What a caller with `right` should get from a row: a code, `pass` (anything but a refusal: 10117, 10108, 10210,
 * or an input error), `stranger` (exactly the stranger's answer) or `any` (not a rights question: the owner
 * creating a device that exists).
 */
export function expected(rule: RouteRule, right: MatrixRight): number | 'pass' | 'stranger' | 'any' {
  const r = RANK[right];
  switch (rule.kind) {
    case 'read':
      return r >= RANK.view ? 'pass' : 10117;
    case 'control':
      return r >= RANK.control ? 'pass' : r >= RANK.view ? 10108 : 10117;
    case 'manage':
      return r >= RANK.owner ? 'pass' : r >= RANK.view ? 10108 : 10117;
    case 'share':
      return r >= RANK.owner ? 'pass' : 10210;
    case 'owner-only':
      return r >= RANK.owner ? 'pass' : 'stranger';
    case 'no-gain':
      return r >= RANK.owner ? 'any' : 'stranger';
    case 'list':
    case 'bulk':
      return 'pass';
  }
}

export const isRefusal = (code: number): boolean => REFUSALS.has(code);
export { RANK as MATRIX_RANK };

/** The people of the matrix fixture, as `TestApp.createUser` returns them. */
export interface MatrixPerson {
  uid: number;
  token: string;
  username: string;
}

/** More callers for the matrix (access keys): made once the fixture's devices and shares exist. */
export type CallerFactory = (
  t: TestApp,
  people: { owner: MatrixPerson; view: MatrixPerson; control: MatrixPerson },
) => Promise<MatrixCaller[]>;
export const MORE_CALLERS: CallerFactory[] = [];
