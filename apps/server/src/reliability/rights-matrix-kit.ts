/**
 * The rights matrix of the reliability suite (rights-matrix.test.ts, issue 20): one real instance of every
 * user-owned resource type, made through the API by its owner, and every verb route on it with how to call it.
 *
 * A type's `create` runs for the owner (user A) and again for the stranger (user B): B's own instances are the
 * parents of the "cross" calls (B's template with A's slave id, B's device with A's command id), which must answer
 * exactly like B's parent with a missing child. Paths are the route keys themselves (`PUT /api/x/:id`), filled from
 * the instance's ids by parameter name (`ids`), or from the names a verb maps (`params`).
 *
 * Device shares reach only the types that hang on a device (`sharedAs`): a view or control share of the owner's
 * shared device reads the product of it and the gateway rule of a shared gateway, and acts on the device's own
 * sub-resources as docs/sharing.md says. Every other type is its owner's alone: a share holder is a stranger there.
 */
import type { InjectOptions } from 'fastify';
import { ACCESS_SCOPES } from '@cellhub/contract/access';

export type Need = 'view' | 'control' | 'owner';
export type Ids = Record<string, string>;

export interface Person {
  uid: number;
  token: string;
  username: string;
  phone: string;
}

/** The devices and products every person's world starts from. */
export interface World {
  person: Person;
  /** Tag in every sn and name of this world (`A`, `B`). */
  tag: string;
  productKey: string;
  /** The device the owner shares (view, control, expired) with the matrix's share holders. */
  sn: string;
  /** A second shared device: given away by the device type's unbind. */
  snUnbind: string;
  /** A third shared device: deleted by the device type's delete. */
  snDelete: string;
  /** A device of the world's person, never shared (the edge of a transmission rule). */
  snEdge: string;
  gatewaySn: string;
  subSn: string;
  otaProductKey: string;
  otaSn: string;
  versionId: number;
  /** A queued command on `sn`. */
  commandId: number;
  /** A predefined command of the main product (a command group the admin made for it; 0 in a lite world). */
  groupCommandId: number;
  dataTemplateId: number;
  /** The usernames of the matrix's share holders (scene shares are given to one of them). */
  friend: string;
}

/**
 * Everything a type's factory may use. The test file fills it from the test kits (src/test/), which this file, not
 * being a test, may not import.
 */
export interface Kit {
  admin: string;
  /** The call's `data`, or a thrown error naming the fixture that failed. */
  ok<T = Record<string, unknown>>(token: string, req: InjectOptions): Promise<T>;
  /** A SIM card of the user's, made by the admin under a manual provider. */
  simCard(uid: number): Promise<string>;
  /** A package on sale, made by the admin. */
  simPackage(priceFen: number): Promise<number>;
  topup(uid: number, fen: number): Promise<void>;
  /** A property report of a device through the gateway, alert hook included; waits for the evaluator. */
  report(sn: string, params: Record<string, number>): Promise<void>;
}

export interface Verb {
  /** Fastify's route key: `METHOD /api/path/:param`. */
  route: string;
  need: Need;
  /** Changes the resource: run last for the owner, and never for a caller without the right before the check. */
  mutates?: boolean;
  /** Path parameter -> the instance id that fills it, when the names differ (default: the same name). */
  params?: Record<string, string>;
  body?: (ids: Ids, w: World) => unknown;
  /** A multipart body: [content-type, payload]. */
  multipart?: (ids: Ids) => [string, Buffer];
  query?: Record<string, string>;
  /**
   * The parameter naming the parent whose child the route reaches (`id` of /data-templates/:id/slaves/:slaveId):
   * the stranger calls it with their own parent and the owner's child, and must get what their parent with a
   * missing child gets.
   */
  cross?: string;
  /** Takes ids in the body and ignores those not the caller's: a refused id answers like a missing one, body too. */
  bulk?: boolean;
  /** Business codes the owner may get instead of 200 (the resource exists and the route works; its state says no). */
  ownerMay?: number[];
  /**
   * What a caller who sees the resource (a share) but lacks `need` gets: 10108, or `hidden` (exactly the answer
   * for a missing one: product changes answer 10107 to a share holder as to a stranger).
   */
  seenRefusal?: 10108 | 'hidden';
}

export interface ResourceType {
  name: string;
  /** Made by an admin, not by a normal user (the owner's calls are then the admin's; everyone else is refused). */
  adminOnly?: boolean;
  /** The right a device share of the owner's shared device gives on this type (none when absent). */
  sharedAs?: (share: 'view' | 'control') => 'view' | 'control';
  create(k: Kit, w: World): Promise<Ids>;
  /** The ids of a resource that does not exist (the same routes must answer them as they answer "not yours"). */
  missing: Ids;
  /** GET paths (as the owner) whose bodies must not change while every refused call runs. */
  snapshot: (ids: Ids) => string[];
  /** A list route and the query that names the instance: it must list it for who may read, and for no one else. */
  list?: {
    url: (ids: Ids) => string;
    marker: (ids: Ids) => string;
    /** False when the list shows its caller's own rows only, even to a share holder who may read one. */
    sharesListed?: boolean;
  };
  verbs: Verb[];
}

/** The forwarding rules' target: the local hook once `startHook` ran. */
let FORWARD_TARGET: { kind: 'http'; url: string } = { kind: 'http', url: 'http://127.0.0.1:9/hook' };
/** Points the forwarding rules at a listener the test started. */
export const useForwardTarget = (url: string): void => {
  FORWARD_TARGET = { kind: 'http', url };
};

export const MISSING_ID = '2000000001';
const MISSING_SN = 'RMNOSUCHDEVICE';
const MISSING_PK = 'pk0000000000000000';

const idOf = (d: { id: number }) => String(d.id);
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const BOUNDARY = 'rights-matrix-boundary';
const multipartFile = (name: string, type: string, content: Buffer): [string, Buffer] => [
  `multipart/form-data; boundary=${BOUNDARY}`,
  Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
        `Content-Type: ${type}\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]),
];

/** A scene document with one Modbus set-point bound to `sn` (scenes do not check devices on save). */
const sceneDocument = (sn: string) => ({
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
      binding: { sn, key: 'temp' },
      write: { mode: 'modbus', tag: 'temp' },
    },
  ],
});

const alertConfig = (name: string, ids: Ids) => ({
  name,
  trigger_ids: [Number(ids.trigger)],
  contact_ids: [Number(ids.contact)],
  methods: ['sms'],
  interval_s: 60,
});

/** The resource types, parents before the types that hang on them (the owner's deletes run in reverse). */
export const RESOURCE_TYPES: ResourceType[] = [
  {
    name: 'products',
    sharedAs: () => 'view',
    missing: { product_key: MISSING_PK },
    async create(_k, w) {
      return { product_key: w.productKey, key: 'temp', template_id: String(w.dataTemplateId) };
    },
    snapshot: (ids) => [`/api/products/${ids.product_key}`],
    // The product list stays the caller's own products (docs/authorisation.md), a share holder's included.
    list: { url: () => '/api/products?per_page=100', marker: (ids) => ids.product_key!, sharesListed: false },
    verbs: [
      { route: 'GET /api/products/:product_key', need: 'view' },
      { route: 'GET /api/products/:product_key/platform-credentials', need: 'owner', seenRefusal: 'hidden' },
      {
        route: 'PUT /api/products/:product_key',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
        body: () => ({ name: 'renamed product' }),
      },
      {
        route: 'POST /api/products/:product_key/properties',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
        body: () => ({ key: 'hum', name: 'Humidity' }),
      },
      {
        route: 'PUT /api/products/:product_key/properties/:key',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
        body: () => ({ key: 'temp', name: 'Temperature (changed)' }),
      },
      // The product is bound to no platform: 10113 names iot_platform_id, past the owner check.
      {
        route: 'PUT /api/products/:product_key/platform-credentials',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
        body: (_ids, w) => ({ items: [{ sn: w.sn, device_secret: 'platform-secret' }] }),
        ownerMay: [10113],
      },
      {
        route: 'POST /api/products/:product_key/platform-sync',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
      },
      // The template gained an empty slave in its own row (80001).
      {
        route: 'PUT /api/products/:product_key/data-template',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
        body: (ids) => ({ template_id: Number(ids.template_id) }),
        ownerMay: [80001],
      },
      {
        route: 'DELETE /api/products/:product_key/data-template',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
      },
      {
        route: 'POST /api/products/:product_key/secret',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
      },
      {
        route: 'DELETE /api/products/:product_key/properties/:key',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
      },
      // The product still has devices: the owner gets a business code, which is no refusal.
      {
        route: 'DELETE /api/products/:product_key',
        need: 'owner',
        mutates: true,
        seenRefusal: 'hidden',
        ownerMay: [10112],
      },
    ],
  },
  {
    name: 'devices',
    sharedAs: (s) => s,
    missing: { sn: MISSING_SN, id: MISSING_ID, cmdId: MISSING_ID },
    async create(_k, w) {
      return {
        sn: w.sn,
        id: String(w.commandId),
        cmdId: String(w.groupCommandId),
        snUnbind: w.snUnbind,
        snDelete: w.snDelete,
      };
    },
    snapshot: (ids) => [
      `/api/devices/${ids.sn}`,
      `/api/devices/${ids.sn}/config`,
      `/api/devices/${ids.sn}/commands`,
      `/api/devices/${ids.snUnbind}`,
      `/api/devices/${ids.snDelete}`,
    ],
    list: { url: (ids) => `/api/devices?keyword=${ids.sn}`, marker: (ids) => ids.sn! },
    verbs: [
      { route: 'GET /api/devices/:sn', need: 'view' },
      { route: 'GET /api/devices/:sn/config', need: 'view' },
      { route: 'GET /api/devices/:sn/commands', need: 'view' },
      { route: 'GET /api/devices/:sn/command-groups', need: 'control' },
      {
        route: 'PUT /api/devices/:sn',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'renamed device' }),
      },
      {
        route: 'PUT /api/devices/:sn/config',
        need: 'control',
        mutates: true,
        body: () => ({ config: { global: { apn: { name: 'changed' } } } }),
      },
      // The control share cancelled it first (20404: no longer waiting).
      {
        route: 'POST /api/devices/:sn/commands/:id/cancel',
        need: 'control',
        mutates: true,
        cross: 'sn',
        ownerMay: [20404],
      },
      // The stranger's own device with the owner's predefined command: as a missing command.
      {
        route: 'POST /api/devices/:sn/command-groups/commands/:cmdId/send',
        need: 'control',
        mutates: true,
        cross: 'sn',
        body: () => ({ params: {}, offline: 'queue' }),
      },
      { route: 'POST /api/devices/:sn/unbind', need: 'owner', mutates: true, params: { sn: 'snUnbind' } },
      { route: 'DELETE /api/devices/:sn', need: 'owner', mutates: true, params: { sn: 'snDelete' } },
    ],
  },
  {
    name: 'user-commands',
    missing: { id: MISSING_ID, runId: MISSING_ID },
    async create(k, w) {
      const c = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/user-commands',
        payload: { name: `rm-${w.tag}-command`, type: 'string', data: 'x' },
      });
      await k.ok(w.person.token, {
        method: 'POST',
        url: `/api/user-commands/${c.id}/send`,
        payload: { sns: [w.sn] },
      });
      const runs = await k.ok<{ id: number }[]>(w.person.token, {
        method: 'GET',
        url: `/api/user-commands/${c.id}/runs`,
      });
      return { id: idOf(c), runId: idOf(runs[0]!) };
    },
    snapshot: (ids) => [`/api/user-commands/${ids.id}`, `/api/user-commands/${ids.id}/runs`],
    list: { url: () => '/api/user-commands?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/user-commands/:id', need: 'owner' },
      { route: 'GET /api/user-commands/:id/runs', need: 'owner' },
      { route: 'GET /api/user-commands/:id/runs/:runId', need: 'owner', cross: 'id' },
      {
        route: 'PUT /api/user-commands/:id',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'renamed command' }),
      },
      {
        route: 'POST /api/user-commands/:id/send',
        need: 'owner',
        mutates: true,
        body: (_ids, w) => ({ sns: [w.sn] }),
      },
      { route: 'DELETE /api/user-commands/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'config-templates',
    missing: { id: MISSING_ID, applyId: MISSING_ID },
    async create(k, w) {
      const c = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/config-templates',
        payload: { name: `rm-${w.tag}-template`, config: { global: { apn: { name: 'cmnet' } } } },
      });
      await k.ok(w.person.token, {
        method: 'POST',
        url: `/api/config-templates/${c.id}/apply`,
        payload: { sns: [w.snEdge] },
      });
      const applies = await k.ok<{ id: number }[]>(w.person.token, {
        method: 'GET',
        url: `/api/config-templates/${c.id}/applies`,
      });
      return { id: idOf(c), applyId: idOf(applies[0]!) };
    },
    snapshot: (ids) => [`/api/config-templates/${ids.id}`, `/api/config-templates/${ids.id}/applies`],
    verbs: [
      { route: 'GET /api/config-templates/:id', need: 'owner' },
      { route: 'GET /api/config-templates/:id/applies', need: 'owner' },
      { route: 'GET /api/config-templates/:id/applies/:applyId', need: 'owner', cross: 'id' },
      {
        route: 'PUT /api/config-templates/:id',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'renamed template' }),
      },
      {
        route: 'POST /api/config-templates/:id/apply',
        need: 'owner',
        mutates: true,
        body: (_ids, w) => ({ sns: [w.snEdge] }),
      },
      { route: 'DELETE /api/config-templates/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'data-templates',
    missing: { id: MISSING_ID, slaveId: MISSING_ID, varId: MISSING_ID },
    async create(k, w) {
      const id = w.dataTemplateId;
      const slaves = await k.ok<{ slaves: { id: number; variables: { id: number }[] }[] }>(w.person.token, {
        method: 'GET',
        url: `/api/data-templates/${id}`,
      });
      const slave = slaves.slaves[0]!;
      return { id: String(id), slaveId: idOf(slave), varId: idOf(slave.variables[0]!) };
    },
    snapshot: (ids) => [`/api/data-templates/${ids.id}`, `/api/data-templates/${ids.id}/devices`],
    verbs: [
      { route: 'GET /api/data-templates/:id', need: 'owner' },
      { route: 'GET /api/data-templates/:id/devices', need: 'owner' },
      {
        route: 'GET /api/data-templates/:id/slaves/:slaveId/variables/export',
        need: 'owner',
        cross: 'id',
      },
      {
        route: 'PUT /api/data-templates/:id',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'renamed data template' }),
      },
      { route: 'POST /api/data-templates/:id/copy', need: 'owner', mutates: true, body: () => ({}) },
      {
        route: 'POST /api/data-templates/:id/devices',
        need: 'owner',
        mutates: true,
        body: (_ids, w) => ({ sns: [w.snEdge] }),
      },
      {
        route: 'POST /api/data-templates/:id/slaves',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'slave two', address: 2 }),
      },
      {
        route: 'PUT /api/data-templates/:id/slaves/:slaveId',
        need: 'owner',
        mutates: true,
        cross: 'id',
        body: () => ({ name: 'renamed slave' }),
      },
      {
        route: 'POST /api/data-templates/:id/slaves/:slaveId/variables',
        need: 'owner',
        mutates: true,
        cross: 'id',
        body: () => ({
          name: 'H',
          tag: 'hum',
          register_type: 'holding',
          register_address: 2,
          data_format: 'int16',
        }),
      },
      {
        route: 'PUT /api/data-templates/:id/variables/:varId',
        need: 'owner',
        mutates: true,
        cross: 'id',
        body: () => ({ name: 'renamed variable' }),
      },
      { route: 'DELETE /api/data-templates/:id/variables/:varId', need: 'owner', mutates: true, cross: 'id' },
      { route: 'DELETE /api/data-templates/:id/slaves/:slaveId', need: 'owner', mutates: true, cross: 'id' },
      // Still applied to a device (80009).
      { route: 'DELETE /api/data-templates/:id', need: 'owner', mutates: true, ownerMay: [80009] },
    ],
  },
  {
    name: 'scripts',
    missing: { id: MISSING_ID, version: '1' },
    async create(k, w) {
      const s = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/scripts',
        payload: {
          name: `rm-${w.tag}-script`,
          product_key: w.otaProductKey,
          source: 'function decode(bytes) { return { temp: 1 }; }',
        },
      });
      return { id: idOf(s), version: '1', product_key: w.otaProductKey };
    },
    snapshot: (ids) => [`/api/scripts/${ids.id}`, `/api/scripts/${ids.id}/versions`],
    list: { url: () => '/api/scripts?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/scripts/:id', need: 'owner' },
      { route: 'GET /api/scripts/:id/versions', need: 'owner' },
      {
        route: 'PUT /api/scripts/:id',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'renamed script', source: 'function decode() { return { temp: 2 }; }' }),
      },
      {
        route: 'PUT /api/scripts/:id/state',
        need: 'owner',
        mutates: true,
        body: () => ({ enabled: false }),
      },
      {
        route: 'PUT /api/scripts/:id/binding',
        need: 'owner',
        mutates: true,
        body: (ids) => ({ product_key: ids.product_key }),
      },
      { route: 'POST /api/scripts/:id/versions/:version/restore', need: 'owner', mutates: true },
      { route: 'DELETE /api/scripts/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'scene-models',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const m = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/scene-models',
        payload: { name: `rm-${w.tag}-model` },
      });
      return { id: idOf(m) };
    },
    snapshot: (ids) => [`/api/scene-models/${ids.id}`],
    list: { url: () => '/api/scene-models?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/scene-models/:id', need: 'owner' },
      { route: 'GET /api/scene-models/:id/export', need: 'owner' },
      {
        route: 'PUT /api/scene-models/:id',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'renamed model' }),
      },
      { route: 'POST /api/scene-models/:id/copy', need: 'owner', mutates: true, body: () => ({}) },
      { route: 'DELETE /api/scene-models/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'scenes',
    missing: { id: MISSING_ID, fileId: 'f0000000000000000000000000000000', uid: MISSING_ID },
    async create(k, w) {
      const s = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/scenes',
        payload: { name: `rm-${w.tag}-scene`, document: sceneDocument(w.sn) },
      });
      const [type, payload] = multipartFile('b.png', 'image/png', PNG);
      const image = await k.ok<{ file: string }>(w.person.token, {
        method: 'POST',
        url: `/api/scenes/${s.id}/images`,
        headers: { 'content-type': type },
        payload,
      });
      await k.ok(w.person.token, {
        method: 'POST',
        url: `/api/scenes/${s.id}/shares`,
        payload: { to: w.friend },
      });
      const shares = await k.ok<{ uid: number }[]>(w.person.token, {
        method: 'GET',
        url: `/api/scenes/${s.id}/shares`,
      });
      return { id: idOf(s), fileId: image.file, uid: String(shares[0]!.uid), widgetId: 'sp' };
    },
    snapshot: (ids) => [`/api/scenes/${ids.id}`, `/api/scenes/${ids.id}/shares`],
    list: { url: () => '/api/scenes?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/scenes/:id', need: 'owner' },
      { route: 'GET /api/scenes/:id/export', need: 'owner' },
      { route: 'GET /api/scenes/:id/values', need: 'owner' },
      { route: 'GET /api/scenes/:id/shares', need: 'owner' },
      { route: 'GET /api/scenes/:id/images/:fileId', need: 'owner', cross: 'id' },
      { route: 'PUT /api/scenes/:id', need: 'owner', mutates: true, body: () => ({ name: 'renamed scene' }) },
      { route: 'POST /api/scenes/:id/copy', need: 'owner', mutates: true, body: () => ({}) },
      {
        route: 'POST /api/scenes/:id/images',
        need: 'owner',
        mutates: true,
        multipart: () => multipartFile('c.png', 'image/png', PNG),
      },
      // The bound device has no data template (81004): past every rights check.
      {
        route: 'POST /api/scenes/:id/widgets/:widgetId/write',
        need: 'owner',
        mutates: true,
        body: () => ({ value: 1 }),
        ownerMay: [81004],
      },
      {
        route: 'POST /api/scenes/:id/shares',
        need: 'owner',
        mutates: true,
        body: (_ids, w) => ({ to: w.friend }),
      },
      { route: 'DELETE /api/scenes/:id/shares/:uid', need: 'owner', mutates: true },
      { route: 'DELETE /api/scenes/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'alert-triggers',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const c = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/alert/triggers',
        payload: { name: `rm-${w.tag}-trigger`, type: 4, sn: w.sn, key: 'temp', b: 10 },
      });
      return { id: idOf(c) };
    },
    snapshot: (ids) => [`/api/alert/triggers/${ids.id}`],
    list: { url: () => '/api/alert/triggers?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/alert/triggers/:id', need: 'owner' },
      {
        route: 'PUT /api/alert/triggers/:id',
        need: 'owner',
        mutates: true,
        body: (_ids, w) => ({ name: 'renamed trigger', type: 4, sn: w.sn, key: 'temp', b: 20 }),
      },
      {
        route: 'PUT /api/alert/triggers/:id/enable',
        need: 'owner',
        mutates: true,
        body: () => ({ enable: 0 }),
      },
      { route: 'DELETE /api/alert/triggers/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'alert-history',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const trigger = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/alert/triggers',
        payload: { name: `rm-${w.tag}-history`, type: 4, sn: w.snEdge, key: 'temp', b: 10 },
      });
      await k.report(w.snEdge, { temp: 50 });
      const rows = await k.ok<{ id: number }[]>(w.person.token, {
        method: 'GET',
        url: `/api/alert/history?trigger_id=${trigger.id}`,
      });
      if (!rows[0]) throw new Error('the alert was not raised');
      return { id: idOf(rows[0]), trigger: String(trigger.id) };
    },
    snapshot: (ids) => [`/api/alert/history?trigger_id=${ids.trigger}`],
    list: {
      url: (ids) => `/api/alert/history?trigger_id=${ids.trigger}`,
      marker: (ids) => `"id":${ids.id},`,
    },
    verbs: [
      { route: 'POST /api/alert/history/:id/ack', need: 'owner', mutates: true },
      {
        route: 'POST /api/alert/history/ack',
        need: 'owner',
        mutates: true,
        params: {},
        bulk: true,
        body: (ids) => ({ ids: [Number(ids.id)] }),
      },
    ],
  },
  {
    name: 'alert-configs',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const trigger = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/alert/triggers',
        payload: { name: `rm-${w.tag}-routed`, type: 1, sn: w.snEdge },
      });
      const contact = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/alert/contacts',
        payload: { name: `rm-${w.tag}-routed`, phone: w.person.phone },
      });
      const ids = { trigger: idOf(trigger), contact: idOf(contact) };
      const c = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/alert/configs',
        payload: alertConfig(`rm-${w.tag}-config`, ids),
      });
      return { id: idOf(c), ...ids };
    },
    snapshot: (ids) => [`/api/alert/configs/${ids.id}`],
    verbs: [
      { route: 'GET /api/alert/configs/:id', need: 'owner' },
      {
        route: 'PUT /api/alert/configs/:id',
        need: 'owner',
        mutates: true,
        body: (ids) => alertConfig('renamed config', ids),
      },
      { route: 'DELETE /api/alert/configs/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'alert-contacts',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const c = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/alert/contacts',
        payload: { name: `rm-${w.tag}-contact`, phone: w.person.phone },
      });
      return { id: idOf(c) };
    },
    snapshot: (ids) => [`/api/alert/contacts/${ids.id}`],
    verbs: [
      { route: 'GET /api/alert/contacts/:id', need: 'owner' },
      {
        route: 'PUT /api/alert/contacts/:id',
        need: 'owner',
        mutates: true,
        body: (_ids, w) => ({ name: 'renamed contact', phone: w.person.phone }),
      },
      {
        route: 'POST /api/alert/contacts/:id/code',
        need: 'owner',
        mutates: true,
        body: () => ({ channel: 'sms' }),
      },
      // A wrong code: the owner is told so (20121).
      {
        route: 'POST /api/alert/contacts/:id/verify',
        need: 'owner',
        mutates: true,
        body: () => ({ channel: 'sms', code: '000000' }),
        ownerMay: [20121],
      },
      { route: 'DELETE /api/alert/contacts/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'ota-tasks',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const task = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/ota/tasks',
        payload: {
          name: `rm-${w.tag}-ota`,
          product_key: w.otaProductKey,
          version_id: w.versionId,
          targets: { type: 'list', sns: [w.otaSn] },
        },
      });
      return { id: idOf(task) };
    },
    snapshot: (ids) => [`/api/ota/tasks/${ids.id}`, `/api/ota/tasks/${ids.id}/devices`],
    list: { url: () => '/api/ota/tasks?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/ota/tasks/:id', need: 'owner' },
      { route: 'GET /api/ota/tasks/:id/devices', need: 'owner' },
      { route: 'POST /api/ota/tasks/:id/start', need: 'owner', mutates: true },
      { route: 'POST /api/ota/tasks/:id/pause', need: 'owner', mutates: true },
      { route: 'POST /api/ota/tasks/:id/cancel', need: 'owner', mutates: true },
      { route: 'DELETE /api/ota/tasks/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'sim-cards',
    missing: { iccid: '89860000000000000000' },
    async create(k, w) {
      return { iccid: await k.simCard(w.person.uid) };
    },
    snapshot: (ids) => [`/api/cards/${ids.iccid}`],
    list: { url: () => '/api/cards?per_page=100', marker: (ids) => ids.iccid! },
    verbs: [
      { route: 'GET /api/cards/:iccid', need: 'owner' },
      { route: 'GET /api/cards/:iccid/usage', need: 'owner' },
      { route: 'GET /api/cards/:iccid/orders', need: 'owner' },
    ],
  },
  {
    name: 'orders',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const pkg = await k.simPackage(100);
      const iccid = await k.simCard(w.person.uid);
      await k.topup(w.person.uid, 10_000);
      const order = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/orders',
        payload: { package_id: pkg, iccids: [iccid] },
      });
      return { id: idOf(order) };
    },
    snapshot: (ids) => [`/api/orders/${ids.id}`, '/api/balance'],
    list: { url: () => '/api/orders?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/orders/:id', need: 'owner' },
      { route: 'POST /api/orders/:id/pay', need: 'owner', mutates: true },
      // Paid just before: the state refuses the cancel (60004).
      { route: 'POST /api/orders/:id/cancel', need: 'owner', mutates: true, ownerMay: [60004] },
    ],
  },
  {
    name: 'forwarding',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const r = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/forwarding',
        payload: { name: `rm-${w.tag}-forward`, kinds: ['property'], sns: [w.sn], target: FORWARD_TARGET },
      });
      return { id: idOf(r) };
    },
    snapshot: (ids) => [`/api/forwarding/${ids.id}`],
    list: { url: () => '/api/forwarding?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/forwarding/:id', need: 'owner' },
      { route: 'GET /api/forwarding/:id/stats', need: 'owner' },
      { route: 'GET /api/forwarding/:id/dead', need: 'owner' },
      {
        route: 'PUT /api/forwarding/:id',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'renamed forward', kinds: ['property', 'event'], target: FORWARD_TARGET }),
      },
      {
        route: 'PUT /api/forwarding/:id/enabled',
        need: 'owner',
        mutates: true,
        body: () => ({ enabled: false }),
      },
      { route: 'POST /api/forwarding/:id/secret', need: 'owner', mutates: true },
      { route: 'POST /api/forwarding/:id/test', need: 'owner', mutates: true, body: () => ({}) },
      { route: 'POST /api/forwarding/:id/dead/replay', need: 'owner', mutates: true, body: () => ({}) },
      { route: 'DELETE /api/forwarding/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'data-transmit',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const r = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/data-transmit',
        payload: { name: `rm-${w.tag}-transmit`, management: [w.sn], edge: [{ sn: w.snEdge }] },
      });
      return { id: idOf(r) };
    },
    snapshot: (ids) => [`/api/data-transmit/${ids.id}`],
    list: { url: () => '/api/data-transmit?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/data-transmit/:id', need: 'owner' },
      {
        route: 'PUT /api/data-transmit/:id',
        need: 'owner',
        mutates: true,
        body: (_ids, w) => ({ name: 'renamed transmit', management: [w.snEdge], edge: [{ sn: w.sn }] }),
      },
      {
        route: 'PUT /api/data-transmit/:id/status',
        need: 'owner',
        mutates: true,
        body: () => ({ status: 0 }),
      },
      { route: 'DELETE /api/data-transmit/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'gateway-rules',
    sharedAs: (s) => s,
    missing: { id: MISSING_ID },
    async create(k, w) {
      const r = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/gateway-rules',
        payload: { name: `rm-${w.tag}-gateway`, gateway_sn: w.gatewaySn },
      });
      await k.ok(w.person.token, {
        method: 'POST',
        url: `/api/gateway-rules/${r.id}/bind`,
        payload: { sub_devices: [{ sn: w.subSn, address: '1' }] },
      });
      return { id: idOf(r) };
    },
    snapshot: (ids) => [`/api/gateway-rules/${ids.id}`],
    list: { url: () => '/api/gateway-rules?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'GET /api/gateway-rules/:id', need: 'view' },
      {
        route: 'PUT /api/gateway-rules/:id',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'renamed gateway rule' }),
      },
      {
        route: 'POST /api/gateway-rules/:id/unbind',
        need: 'owner',
        mutates: true,
        body: (_ids, w) => ({ sns: [w.subSn] }),
      },
      {
        route: 'POST /api/gateway-rules/:id/bind',
        need: 'owner',
        mutates: true,
        body: (_ids, w) => ({ sub_devices: [{ sn: w.subSn, address: '2' }] }),
      },
      { route: 'DELETE /api/gateway-rules/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'access-keys',
    missing: { ak: 'AKAAAAAAAAAAAAAAAAAAAA' },
    async create(k, w) {
      const key = await k.ok<{ access_key: string }>(w.person.token, {
        method: 'POST',
        url: '/api/access-keys',
        payload: { name: `rm-${w.tag}-key`, scopes: ['devices:read'] },
      });
      return { ak: key.access_key };
    },
    snapshot: (ids) => [`/api/access-keys/${ids.ak}`],
    list: { url: () => '/api/access-keys?per_page=100', marker: (ids) => ids.ak! },
    verbs: [
      { route: 'GET /api/access-keys/:ak', need: 'owner' },
      { route: 'GET /api/access-keys/:ak/usage', need: 'owner' },
      { route: 'GET /api/access-keys/:ak/uses', need: 'owner' },
      {
        route: 'PUT /api/access-keys/:ak',
        need: 'owner',
        mutates: true,
        body: () => ({ name: 'renamed key', scopes: [...ACCESS_SCOPES] }),
      },
      {
        route: 'POST /api/access-keys/:ak/verify-code',
        need: 'owner',
        mutates: true,
        body: () => ({ channel: 'sms' }),
      },
      // A wrong code: the owner is told so (20121), which nobody else is.
      {
        route: 'POST /api/access-keys/:ak/verify',
        need: 'owner',
        mutates: true,
        body: () => ({ code: '000000' }),
        ownerMay: [20121],
      },
      { route: 'POST /api/access-keys/:ak/rotate', need: 'owner', mutates: true },
      { route: 'DELETE /api/access-keys/:ak', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'inbox',
    missing: { id: MISSING_ID },
    // A message to the owner: their friend shares a device with them (a share_received notice).
    async create(k, w) {
      const list = await k.ok<{ id: number }[]>(w.person.token, { method: 'GET', url: '/api/inbox' });
      if (!list[0]) throw new Error(`no inbox message for ${w.person.username}`);
      return { id: idOf(list[0]) };
    },
    snapshot: () => ['/api/inbox', '/api/inbox/unread'],
    list: { url: () => '/api/inbox?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [
      { route: 'POST /api/inbox/:id/read', need: 'owner', mutates: true },
      {
        route: 'POST /api/inbox/read',
        need: 'owner',
        mutates: true,
        params: {},
        bulk: true,
        body: (ids) => ({ ids: [Number(ids.id)] }),
      },
    ],
  },
  {
    name: 'shares',
    missing: { id: MISSING_ID },
    // A share of the owner's device with their friend (not one of the matrix's share holders).
    async create(k, w) {
      const list = await k.ok<{ id: number; to_username: string }[]>(w.person.token, {
        method: 'GET',
        url: `/api/shares/outgoing?per_page=100&sn=${w.snEdge}`,
      });
      if (!list[0]) throw new Error('no outgoing share');
      return { id: idOf(list[0]) };
    },
    snapshot: () => ['/api/shares/outgoing?per_page=100'],
    verbs: [
      {
        route: 'PUT /api/shares/:id',
        need: 'owner',
        mutates: true,
        body: () => ({ right: 'control', expires_at: null }),
      },
      { route: 'DELETE /api/shares/:id', need: 'owner', mutates: true },
    ],
  },
  {
    name: 'share-links',
    missing: { id: MISSING_ID },
    async create(k, w) {
      const link = await k.ok<{ id: number }>(w.person.token, {
        method: 'POST',
        url: '/api/share-links',
        payload: { sns: [w.snEdge], right: 'view' },
      });
      return { id: idOf(link) };
    },
    snapshot: () => ['/api/share-links?per_page=100'],
    list: { url: () => '/api/share-links?per_page=100', marker: (ids) => `"id":${ids.id},` },
    verbs: [{ route: 'DELETE /api/share-links/:id', need: 'owner', mutates: true }],
  },
];

export interface KeyPair {
  access_key: string;
  secret: string;
}
