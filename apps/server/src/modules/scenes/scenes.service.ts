import type { Readable } from 'node:stream';
import { and, asc, count, desc, eq, ilike, inArray, or, type SQL, sql } from 'drizzle-orm';
import {
  type ModelDocument,
  type ModelFile,
  modelSlotsUsed,
  parseSceneFile,
  type SceneCanvas,
  type SceneDetail,
  type SceneDevice,
  type SceneDocument,
  sceneDeviceSns,
  type SceneFile,
  type sceneFromModelBody,
  type SceneItem,
  type SceneListQuery,
  type sceneModelBody,
  type SceneModelDetail,
  type SceneModelItem,
  type sceneModelUpdateBody,
  type SceneShareItem,
  type SceneSlot,
  type SceneValue,
  type SceneValues,
  type SceneWidget,
  type SceneWriteResult,
  type sceneBody,
  type sceneUpdateBody,
  sceneBindings,
  emptySceneDocument,
  isControlKind,
  SCENE_IMAGE_MAX_BYTES,
  SCENE_IMAGES_MAX,
  type SceneImageResult,
  SCENE_VALUE_PLACEHOLDER,
} from '@cellhub/contract/scenes';
import type { z } from 'zod';
import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/app-error';
import {
  canControl,
  canView,
  findVisibleOwned,
  ownerFilter,
  ownerOfNew,
  sceneRight,
  type SceneRight,
} from '../../lib/authz';
import type { Actor, Deps } from '../../lib/deps';
import {
  type FileRef,
  fileStore,
  filesDir,
  removeStoredFiles,
  startsWith,
  storeStream,
} from '../../lib/file-store';
import { likeKeyword } from '../../lib/paging';
import { writeAudit } from '../audit/audit.service';
import { sendCommand } from '../commands/commands.service';
import { effectiveTemplates } from '../data-templates/data-templates.service';
import { dataTemplateVariables } from '../data-templates/data-templates.table';
import { accessibleDevice, withActorShare } from '../devices/device-access';
import { type DeviceRow, devices } from '../devices/devices.table';
import type { ModbusPoller } from '../modbus-polling/modbus-poller';
import { writeVariable } from '../modbus-polling/modbus-polling.service';
import { devicePropertyLatest } from '../telemetry/telemetry.table';
import { users } from '../users/users.table';
import {
  type SceneModelRow,
  sceneDevices,
  sceneImages,
  sceneModels,
  type SceneRow,
  scenes,
  sceneShares,
} from './scenes.table';

/**
 * Scenes (issue 17, docs/scenes.md). Models and scenes are owned rows (lib/authz.ts: owner or admin; anyone else
 * 10107 as for a missing one). A scene may be shared read-only with other accounts (`scene_shares`); whoever reads
 * a scene sees only the values of the devices they may view themselves, and writes only to devices they may
 * control (a scene never widens device access).
 */

const NOT_FOUND = 10107;

type ModelInput = z.output<typeof sceneModelBody>;
type ModelUpdate = z.output<typeof sceneModelUpdateBody>;
type SceneInput = z.output<typeof sceneBody>;
type SceneUpdate = z.output<typeof sceneUpdateBody>;
type FromModelInput = z.output<typeof sceneFromModelBody>;

/** The canvas without its background image: images belong to the scene they were uploaded to. */
function withoutBackground(canvas: SceneCanvas): SceneCanvas {
  const { background: _image, ...rest } = canvas;
  return rest;
}

const emptyModelDocument = (): ModelDocument => emptySceneDocument() as unknown as ModelDocument;

// --- models -------------------------------------------------------------------------------------------------------

/** 83001 with the widget paths when a model's document names slots it does not have. */
function checkModelSlots(slots: SceneSlot[], doc: ModelDocument): void {
  const names = new Set(slots.map((s) => s.name));
  const bad = modelSlotsUsed(doc).filter((u) => !names.has(u.slot));
  if (bad.length > 0)
    throw new AppError(
      83001,
      400,
      undefined,
      bad.map((b) => ({ field: ['document', ...b.path].join('.'), message: 'unknown_slot' })),
    );
}

async function ownerNames(db: DbOrTx, uids: number[]): Promise<Map<number, string>> {
  if (uids.length === 0) return new Map();
  const rows = await db
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(inArray(users.id, [...new Set(uids)]));
  return new Map(rows.map((r) => [r.id, r.username]));
}

async function modelSceneCounts(db: DbOrTx, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: scenes.modelId, n: count() })
    .from(scenes)
    .where(inArray(scenes.modelId, ids))
    .groupBy(scenes.modelId);
  return new Map(rows.map((r) => [r.id!, r.n]));
}

function toModelItem(m: SceneModelRow, owner: string, sceneCount: number): SceneModelItem {
  return {
    id: m.id,
    uid: m.uid,
    owner,
    name: m.name,
    remark: m.remark,
    slots: m.slots,
    widget_count: m.document.widgets.length,
    scene_count: sceneCount,
    createdat: m.createdat.toISOString(),
    updatedat: m.updatedat.toISOString(),
  };
}

async function modelDetail(db: DbOrTx, m: SceneModelRow): Promise<SceneModelDetail> {
  const [names, counts] = await Promise.all([ownerNames(db, [m.uid]), modelSceneCounts(db, [m.id])]);
  return { ...toModelItem(m, names.get(m.uid) ?? '', counts.get(m.id) ?? 0), document: m.document };
}

const visibleModel = (db: DbOrTx, actor: Actor, id: number, forUpdate = false) =>
  findVisibleOwned(db, actor, sceneModels, id, NOT_FOUND, forUpdate);

export async function listModels(
  deps: Deps,
  actor: Actor,
  query: SceneListQuery & { current: number; per_page: number },
): Promise<{ items: SceneModelItem[]; total: number }> {
  const filters: (SQL | undefined)[] = [ownerFilter(actor, sceneModels.uid)];
  if (query.keyword) {
    const k = likeKeyword(query.keyword);
    filters.push(or(ilike(sceneModels.name, k), ilike(sceneModels.remark, k)));
  }
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(sceneModels)
      .where(where)
      .orderBy(desc(sceneModels.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(sceneModels).where(where),
  ]);
  const [names, counts] = await Promise.all([
    ownerNames(
      deps.db,
      rows.map((r) => r.uid),
    ),
    modelSceneCounts(
      deps.db,
      rows.map((r) => r.id),
    ),
  ]);
  return {
    items: rows.map((r) => toModelItem(r, names.get(r.uid) ?? '', counts.get(r.id) ?? 0)),
    total: total?.n ?? 0,
  };
}

export async function getModel(deps: Deps, actor: Actor, id: number): Promise<SceneModelDetail> {
  return modelDetail(deps.db, await visibleModel(deps.db, actor, id));
}

export async function createModel(deps: Deps, actor: Actor, input: ModelInput): Promise<SceneModelDetail> {
  const document = input.document ?? emptyModelDocument();
  checkModelSlots(input.slots, document);
  const row = await deps.db.transaction(async (tx) => {
    const [m] = await tx
      .insert(sceneModels)
      .values({
        uid: ownerOfNew(actor),
        name: input.name,
        remark: input.remark,
        slots: input.slots,
        document,
      })
      .returning();
    if (!m) throw new AppError(10109);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'scene_model_create',
      target: `scene_model:${m.id}`,
      ip: actor.ip,
      detail: { name: m.name },
    });
    return m;
  });
  return modelDetail(deps.db, row);
}

export async function updateModel(
  deps: Deps,
  actor: Actor,
  id: number,
  input: ModelUpdate,
): Promise<SceneModelDetail> {
  const row = await deps.db.transaction(async (tx) => {
    const m = await visibleModel(tx, actor, id, true);
    const slots = input.slots ?? m.slots;
    const document = input.document ?? m.document;
    checkModelSlots(slots, document);
    const [u] = await tx
      .update(sceneModels)
      .set({ name: input.name ?? m.name, remark: input.remark ?? m.remark, slots, document })
      .where(eq(sceneModels.id, m.id))
      .returning();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'scene_model_update',
      target: `scene_model:${m.id}`,
      ip: actor.ip,
      detail: { fields: Object.keys(input) },
    });
    return u!;
  });
  return modelDetail(deps.db, row);
}

/** 83004 while scenes made from the model exist. */
export async function deleteModel(deps: Deps, actor: Actor, id: number): Promise<null> {
  await deps.db.transaction(async (tx) => {
    const m = await visibleModel(tx, actor, id, true);
    const [used] = await tx.select({ n: count() }).from(scenes).where(eq(scenes.modelId, m.id));
    if ((used?.n ?? 0) > 0) throw new AppError(83004, 400, undefined, { scenes: used!.n });
    await tx.delete(sceneModels).where(eq(sceneModels.id, m.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'scene_model_delete',
      target: `scene_model:${m.id}`,
      ip: actor.ip,
      detail: { name: m.name },
    });
  });
  return null;
}

export async function copyModel(
  deps: Deps,
  actor: Actor,
  id: number,
  name?: string,
): Promise<SceneModelDetail> {
  const m = await visibleModel(deps.db, actor, id);
  return createModel(deps, actor, {
    name: name ?? `${m.name} copy`.slice(0, 64),
    remark: m.remark,
    slots: m.slots,
    document: m.document,
  });
}

export async function exportModel(deps: Deps, actor: Actor, id: number): Promise<ModelFile> {
  const m = await visibleModel(deps.db, actor, id);
  return {
    format: m.document.format,
    version: m.document.version,
    kind: 'model',
    name: m.name,
    remark: m.remark,
    slots: m.slots,
    canvas: withoutBackground(m.document.canvas),
    widgets: m.document.widgets,
  };
}

/** The file's problems as the error (83001 per field, 83002 version, 83006 too many widgets). */
function fileError(r: { code: number; details: unknown }): AppError {
  return new AppError(r.code as 83001, 400, undefined, r.details);
}

export async function importModel(deps: Deps, actor: Actor, input: unknown): Promise<SceneModelDetail> {
  // The new model is the caller's: asked before the file is read, so a bad file is the caller's own answer.
  ownerOfNew(actor);
  const r = parseSceneFile(input, 'model');
  if (!r.ok) throw fileError(r);
  const { name, remark, slots, format, version, canvas, widgets } = r.file;
  return createModel(deps, actor, {
    name,
    remark,
    slots,
    document: { format, version, canvas: withoutBackground(canvas), widgets },
  });
}

// --- scenes: rows and rights ------------------------------------------------------------------------------------

/** The scene with the caller's right; 10107 when none (as for a missing one), 10108 when `need` is `owner`. */
async function sceneFor(
  db: DbOrTx,
  actor: Actor,
  id: number,
  need: 'view' | 'owner',
  forUpdate = false,
): Promise<SceneRow & { right: Exclude<SceneRight, 'none'> }> {
  const query = db.select().from(scenes).where(eq(scenes.id, id));
  const [row] = forUpdate ? await query.for('update') : await query;
  let shared = false;
  if (row && row.uid !== actor.uid) {
    const [s] = await db
      .select({ uid: sceneShares.uid })
      .from(sceneShares)
      .where(and(eq(sceneShares.sceneId, row.id), eq(sceneShares.uid, actor.uid)));
    shared = s !== undefined;
  }
  const right = sceneRight(actor, row, shared);
  if (!row || right === 'none') throw new AppError(NOT_FOUND);
  if (need === 'owner' && right !== 'owner') throw new AppError(10108);
  return { ...row, right };
}

interface DeviceWithRight {
  row: DeviceRow;
  view: boolean;
  control: boolean;
}

/** The devices of these serial numbers with the actor's rights (a missing sn is absent). */
async function devicesOf(db: DbOrTx, actor: Actor, sns: string[]): Promise<Map<string, DeviceWithRight>> {
  const out = new Map<string, DeviceWithRight>();
  if (sns.length === 0) return out;
  const rows = await withActorShare(db, actor).where(inArray(devices.sn, sns));
  for (const r of rows) {
    const access = { uid: r.device.uid, ...(r.shared ? { shared: r.shared } : {}) };
    out.set(r.device.sn, { row: r.device, view: canView(actor, access), control: canControl(actor, access) });
  }
  return out;
}

async function writeSceneDevices(tx: DbOrTx, sceneId: number, doc: SceneDocument): Promise<void> {
  await tx.delete(sceneDevices).where(eq(sceneDevices.sceneId, sceneId));
  const sns = sceneDeviceSns(doc);
  if (sns.length > 0) await tx.insert(sceneDevices).values(sns.map((sn) => ({ sceneId, sn })));
}

async function sceneCounts(db: DbOrTx, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: sceneDevices.sceneId, n: count() })
    .from(sceneDevices)
    .where(inArray(sceneDevices.sceneId, ids))
    .groupBy(sceneDevices.sceneId);
  return new Map(rows.map((r) => [r.id, r.n]));
}

async function modelNames(db: DbOrTx, ids: (number | null)[]): Promise<Map<number, string>> {
  const list = [...new Set(ids.filter((i): i is number => i !== null))];
  if (list.length === 0) return new Map();
  const rows = await db
    .select({ id: sceneModels.id, name: sceneModels.name })
    .from(sceneModels)
    .where(inArray(sceneModels.id, list));
  return new Map(rows.map((r) => [r.id, r.name]));
}

function toSceneItem(
  s: SceneRow,
  right: 'owner' | 'view',
  owner: string,
  modelName: string | null,
  deviceCount: number,
): SceneItem {
  return {
    id: s.id,
    uid: s.uid,
    owner,
    name: s.name,
    remark: s.remark,
    model_id: s.modelId,
    model_name: modelName,
    widget_count: s.document.widgets.length,
    device_count: deviceCount,
    access: right,
    createdat: s.createdat.toISOString(),
    updatedat: s.updatedat.toISOString(),
  };
}

async function sceneDetail(
  deps: Deps,
  actor: Actor,
  s: SceneRow,
  right: 'owner' | 'view',
): Promise<SceneDetail> {
  const sns = sceneDeviceSns(s.document);
  const [names, models, known] = await Promise.all([
    ownerNames(deps.db, [s.uid]),
    modelNames(deps.db, [s.modelId]),
    devicesOf(deps.db, actor, sns),
  ]);
  const list: SceneDevice[] = sns.map((sn) => {
    const d = known.get(sn);
    if (!d || !d.view) return { sn, name: sn, product_key: '', online: 0, visible: false, control: false };
    return {
      sn,
      name: d.row.name || sn,
      product_key: d.row.productKey,
      online: deps.link.online(sn, d.row.online) ? 1 : 0,
      visible: true,
      control: d.control,
    };
  });
  return {
    ...toSceneItem(
      s,
      right,
      names.get(s.uid) ?? '',
      s.modelId ? (models.get(s.modelId) ?? null) : null,
      sns.length,
    ),
    document: s.document,
    devices: list,
  };
}

// --- scenes: CRUD -----------------------------------------------------------------------------------------------

/** The caller's scenes and those shared with them (admins: everyone's), newest first. */
export async function listScenes(
  deps: Deps,
  actor: Actor,
  query: SceneListQuery & { current: number; per_page: number },
): Promise<{ items: SceneItem[]; total: number }> {
  const own = ownerFilter(actor, scenes.uid);
  const sharedIds = sql`${scenes.id} in (select ${sceneShares.sceneId} from ${sceneShares} where ${sceneShares.uid} = ${actor.uid})`;
  const filters: (SQL | undefined)[] = [own ? or(own, sharedIds) : undefined];
  if (query.keyword) {
    const k = likeKeyword(query.keyword);
    filters.push(or(ilike(scenes.name, k), ilike(scenes.remark, k)));
  }
  const where = and(...filters);
  const [rows, [total]] = await Promise.all([
    deps.db
      .select()
      .from(scenes)
      .where(where)
      .orderBy(desc(scenes.id))
      .limit(query.per_page)
      .offset((query.current - 1) * query.per_page),
    deps.db.select({ n: count() }).from(scenes).where(where),
  ]);
  const [names, models, counts] = await Promise.all([
    ownerNames(
      deps.db,
      rows.map((r) => r.uid),
    ),
    modelNames(
      deps.db,
      rows.map((r) => r.modelId),
    ),
    sceneCounts(
      deps.db,
      rows.map((r) => r.id),
    ),
  ]);
  return {
    items: rows.map((r) => {
      const right = sceneRight(actor, r, true) === 'owner' ? 'owner' : 'view';
      return toSceneItem(
        r,
        right,
        names.get(r.uid) ?? '',
        r.modelId ? (models.get(r.modelId) ?? null) : null,
        counts.get(r.id) ?? 0,
      );
    }),
    total: total?.n ?? 0,
  };
}

export async function getScene(deps: Deps, actor: Actor, id: number): Promise<SceneDetail> {
  const s = await sceneFor(deps.db, actor, id, 'view');
  return sceneDetail(deps, actor, s, s.right);
}

async function insertScene(
  deps: Deps,
  actor: Actor,
  values: { name: string; remark: string; document: SceneDocument; modelId: number | null },
): Promise<SceneDetail> {
  const row = await deps.db.transaction(async (tx) => {
    const [s] = await tx
      .insert(scenes)
      .values({ ...values, uid: ownerOfNew(actor) })
      .returning();
    if (!s) throw new AppError(10109);
    await writeSceneDevices(tx, s.id, values.document);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'scene_create',
      target: `scene:${s.id}`,
      ip: actor.ip,
      detail: { name: s.name, model_id: s.modelId },
    });
    return s;
  });
  return sceneDetail(deps, actor, row, 'owner');
}

export async function createScene(deps: Deps, actor: Actor, input: SceneInput): Promise<SceneDetail> {
  return insertScene(deps, actor, {
    name: input.name,
    remark: input.remark,
    document: input.document ?? emptySceneDocument(),
    modelId: null,
  });
}

export async function updateScene(
  deps: Deps,
  actor: Actor,
  id: number,
  input: SceneUpdate,
): Promise<SceneDetail> {
  const row = await deps.db.transaction(async (tx) => {
    const s = await sceneFor(tx, actor, id, 'owner', true);
    const [u] = await tx
      .update(scenes)
      .set({
        name: input.name ?? s.name,
        remark: input.remark ?? s.remark,
        document: input.document ?? s.document,
      })
      .where(eq(scenes.id, s.id))
      .returning();
    if (input.document) await writeSceneDevices(tx, s.id, input.document);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'scene_update',
      target: `scene:${s.id}`,
      ip: actor.ip,
      detail: { fields: Object.keys(input) },
    });
    return u!;
  });
  return sceneDetail(deps, actor, row, 'owner');
}

export async function deleteScene(deps: Deps, actor: Actor, id: number): Promise<null> {
  const files = await deps.db.transaction(async (tx) => {
    const s = await sceneFor(tx, actor, id, 'owner', true);
    const images = await tx
      .select({ fileId: sceneImages.fileId })
      .from(sceneImages)
      .where(eq(sceneImages.sceneId, s.id));
    await tx.delete(scenes).where(eq(scenes.id, s.id));
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'scene_delete',
      target: `scene:${s.id}`,
      ip: actor.ip,
      detail: { name: s.name },
    });
    return images.map((i) => i.fileId);
  });
  // The files go once the rows are gone; a failure is logged, never the request's.
  await removeStoredFiles(deps, SCENE_AREA, files);
  return null;
}

/** A copy of a scene the caller may read, owned by the caller (device rights stay the caller's own). */
export async function copyScene(deps: Deps, actor: Actor, id: number, name?: string): Promise<SceneDetail> {
  const s = await sceneFor(deps.db, actor, id, 'view');
  return insertScene(deps, actor, {
    name: name ?? `${s.name} copy`.slice(0, 64),
    remark: s.remark,
    document: s.document,
    modelId: s.right === 'owner' ? s.modelId : null,
  });
}

export async function exportScene(deps: Deps, actor: Actor, id: number): Promise<SceneFile> {
  const s = await sceneFor(deps.db, actor, id, 'view');
  return {
    format: s.document.format,
    version: s.document.version,
    kind: 'scene',
    name: s.name,
    remark: s.remark,
    canvas: s.document.canvas,
    widgets: s.document.widgets,
  };
}

export async function importScene(deps: Deps, actor: Actor, input: unknown): Promise<SceneDetail> {
  ownerOfNew(actor);
  const r = parseSceneFile(input, 'scene');
  if (!r.ok) throw fileError(r);
  const { name, remark, format, version, canvas, widgets } = r.file;
  // Images belong to the scene they were uploaded to; the new scene has none yet.
  return insertScene(deps, actor, {
    name,
    remark,
    document: { format, version, canvas: withoutBackground(canvas), widgets },
    modelId: null,
  });
}

/**
 * A scene from a model: each slot bound to a device the caller may view (10117 otherwise) that is of the slot's
 * product or has the slot's template (its own or its product's default) applied, else 83003 naming the slot.
 */
export async function sceneFromModel(deps: Deps, actor: Actor, input: FromModelInput): Promise<SceneDetail> {
  const m = await visibleModel(deps.db, actor, input.model_id);
  const bound = new Map<string, string>();
  for (const slot of m.slots) {
    const field = `bindings.${slot.name}`;
    const sn = input.bindings[slot.name];
    if (!sn) throw new AppError(83003, 400, undefined, [{ field, message: 'required' }]);
    let device;
    try {
      device = await accessibleDevice(deps.db, actor, sn, 'view');
    } catch (err) {
      if (err instanceof AppError) throw new AppError(err.code, 400, undefined, [{ field, message: sn }]);
      throw err;
    }
    if (slot.product_key !== undefined && device.productKey !== slot.product_key)
      throw new AppError(83003, 400, undefined, [{ field, message: `product ${slot.product_key} expected` }]);
    if (slot.template_id !== undefined) {
      const eff = (await effectiveTemplates(deps.db, [device.id])).get(device.id);
      if (eff?.templateId !== slot.template_id)
        throw new AppError(83003, 400, undefined, [
          { field, message: `template ${slot.template_id} expected` },
        ]);
    }
    bound.set(slot.name, device.sn);
  }
  const widgets = m.document.widgets.map((w) => {
    if ('binding' in w) return { ...w, binding: { sn: bound.get(w.binding.slot)!, key: w.binding.key } };
    if (w.kind === 'link') return { ...w, target: { sn: bound.get(w.target.slot)! } };
    return w;
  }) as SceneWidget[];
  return insertScene(deps, actor, {
    name: input.name,
    remark: input.remark,
    document: { ...m.document, canvas: withoutBackground(m.document.canvas), widgets },
    modelId: m.id,
  });
}

// --- images -----------------------------------------------------------------------------------------------------

const SCENE_AREA = 'scenes';

/** Where the `dir` store keeps scene images (DATA_DIR/files/scenes). */
export const sceneImageDir = (deps: Pick<Deps, 'config'>): string => filesDir(deps, SCENE_AREA);

const IMAGE_SIGNATURES: [string, (b: Buffer) => boolean][] = [
  ['image/png', (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['image/jpeg', (b) => startsWith(b, [0xff, 0xd8, 0xff])],
  [
    'image/gif',
    (b) =>
      b.subarray(0, 6).toString('latin1') === 'GIF87a' || b.subarray(0, 6).toString('latin1') === 'GIF89a',
  ],
  [
    'image/webp',
    (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  ],
];
const imageTypeOf = (head: Buffer): string | undefined => IMAGE_SIGNATURES.find(([, is]) => is(head))?.[0];

export const imageTooLarge = (): AppError =>
  new AppError(50001, 413, `The image exceeds ${SCENE_IMAGE_MAX_BYTES} bytes`, [
    { field: 'file', message: 'too large' },
  ]);

/**
 * Stores an image for the scene (owner or admin): PNG, JPEG, GIF or WebP by its bytes (SVG and anything else 50002),
 * at most SCENE_IMAGE_MAX_BYTES (50001), at most SCENE_IMAGES_MAX per scene (10113).
 */
export async function uploadSceneImage(
  deps: Deps,
  actor: Actor,
  id: number,
  source: Readable,
): Promise<SceneImageResult> {
  const s = await sceneFor(deps.db, actor, id, 'owner');
  const [n] = await deps.db.select({ n: count() }).from(sceneImages).where(eq(sceneImages.sceneId, s.id));
  const refused =
    (n?.n ?? 0) >= SCENE_IMAGES_MAX
      ? new AppError(10113, 400, undefined, [
          { field: 'file', message: `at most ${SCENE_IMAGES_MAX} images` },
        ])
      : undefined;
  let type = '';
  const stored = await storeStream(source, {
    store: fileStore(deps),
    area: SCENE_AREA,
    maxBytes: SCENE_IMAGE_MAX_BYTES,
    tooLarge: imageTooLarge,
    sniff: (head) => {
      type = imageTypeOf(head) ?? '';
      return type ? undefined : 'not a PNG, JPEG, GIF or WebP image';
    },
    refused,
    drainOnFailure: true,
  });
  await deps.db
    .insert(sceneImages)
    .values({ fileId: stored.fileId, sceneId: s.id, contentType: type, size: stored.size });
  return { file: stored.fileId, content_type: type, size: stored.size };
}

/** An image of a scene the caller may read: where it is stored and its type; 10107 for another scene's or a missing one. */
export async function sceneImage(
  deps: Deps,
  actor: Actor,
  id: number,
  fileId: string,
): Promise<{ file: FileRef; contentType: string; size: number }> {
  const s = await sceneFor(deps.db, actor, id, 'view');
  const [row] = await deps.db
    .select()
    .from(sceneImages)
    .where(and(eq(sceneImages.sceneId, s.id), eq(sceneImages.fileId, fileId)));
  if (!row) throw new AppError(NOT_FOUND);
  return {
    file: { area: SCENE_AREA, fileId: row.fileId },
    contentType: row.contentType,
    size: row.size,
  };
}

// --- shares -----------------------------------------------------------------------------------------------------

export async function listSceneShares(deps: Deps, actor: Actor, id: number): Promise<SceneShareItem[]> {
  const s = await sceneFor(deps.db, actor, id, 'owner');
  const rows = await deps.db
    .select({ uid: sceneShares.uid, username: users.username, createdat: sceneShares.createdat })
    .from(sceneShares)
    .innerJoin(users, eq(users.id, sceneShares.uid))
    .where(eq(sceneShares.sceneId, s.id))
    .orderBy(asc(sceneShares.createdat));
  return rows.map((r) => ({ ...r, right: 'view' as const, createdat: r.createdat.toISOString() }));
}

/** Share a scene read-only with an account (username or phone, as device shares); 10210 unknown, 10212 self. */
export async function addSceneShare(
  deps: Deps,
  actor: Actor,
  id: number,
  to: string,
): Promise<SceneShareItem[]> {
  const s = await sceneFor(deps.db, actor, id, 'owner');
  const [target] = await deps.db
    .select({ id: users.id, disabled: users.disabled })
    .from(users)
    .where(or(eq(sql`lower(${users.username})`, to.toLowerCase()), eq(users.phone, to)))
    .orderBy(sql`(lower(${users.username}) = ${to.toLowerCase()}) desc`)
    .limit(1);
  if (!target || target.disabled)
    throw new AppError(10210, 400, undefined, [{ field: 'to', message: 'no such account' }]);
  if (target.id === s.uid) throw new AppError(10212);
  await deps.db.transaction(async (tx) => {
    await tx.insert(sceneShares).values({ sceneId: s.id, uid: target.id }).onConflictDoNothing();
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'scene_share',
      target: `scene:${s.id}`,
      ip: actor.ip,
      detail: { to: target.id },
    });
  });
  return listSceneShares(deps, actor, id);
}

export async function removeSceneShare(deps: Deps, actor: Actor, id: number, uid: number): Promise<null> {
  const s = await sceneFor(deps.db, actor, id, 'owner');
  await deps.db.transaction(async (tx) => {
    const gone = await tx
      .delete(sceneShares)
      .where(and(eq(sceneShares.sceneId, s.id), eq(sceneShares.uid, uid)))
      .returning();
    if (gone.length === 0) throw new AppError(NOT_FOUND);
    await writeAudit(tx, {
      uid: actor.uid,
      action: 'scene_unshare',
      target: `scene:${s.id}`,
      ip: actor.ip,
      detail: { to: uid },
    });
  });
  return null;
}

// --- live values ----------------------------------------------------------------------------------------------------

/** The bound sampling cycles by device id and tag (data template variables), for greying stale values. */
async function cyclesOf(db: DbOrTx, deviceIds: number[]): Promise<Map<number, Map<string, number>>> {
  const out = new Map<number, Map<string, number>>();
  const eff = await effectiveTemplates(db, deviceIds);
  const ids = [...new Set([...eff.values()].map((e) => e.templateId))];
  if (ids.length === 0) return out;
  const vars = await db
    .select({
      templateId: dataTemplateVariables.templateId,
      tag: dataTemplateVariables.tag,
      cycle: dataTemplateVariables.samplingCycleS,
    })
    .from(dataTemplateVariables)
    .where(inArray(dataTemplateVariables.templateId, ids));
  for (const [deviceId, e] of eff)
    out.set(
      deviceId,
      new Map(vars.filter((v) => v.templateId === e.templateId).map((v) => [v.tag, v.cycle])),
    );
  return out;
}

/**
 * The current value of every bound `{ sn, key }` of devices the caller may view (the rest are left out: a scene
 * never shows what its reader may not see).
 */
export async function sceneValues(deps: Deps, actor: Actor, id: number): Promise<SceneValues> {
  const s = await sceneFor(deps.db, actor, id, 'view');
  const bindings = sceneBindings(s.document);
  const known = await devicesOf(
    deps.db,
    actor,
    bindings.map((b) => b.sn),
  );
  const visible = [...known.values()].filter((d) => d.view);
  const ids = visible.map((d) => d.row.id);
  const [latest, cycles] = await Promise.all([
    ids.length === 0
      ? []
      : deps.db.select().from(devicePropertyLatest).where(inArray(devicePropertyLatest.deviceId, ids)),
    cyclesOf(deps.db, ids),
  ]);
  const byKey = new Map(latest.map((l) => [`${l.deviceId}\u0001${l.key}`, l]));
  const items: SceneValue[] = [];
  for (const b of bindings) {
    const d = known.get(b.sn);
    if (!d?.view) continue;
    const l = byKey.get(`${d.row.id}\u0001${b.key}`);
    items.push({
      sn: b.sn,
      key: b.key,
      value: l ? (l.num ?? l.txt ?? l.bool ?? null) : null,
      ts: l ? l.ts.toISOString() : null,
      cycle_s: cycles.get(d.row.id)?.get(b.key) ?? null,
      online: deps.link.online(b.sn, d.row.online) ? 1 : 0,
    });
  }
  return { items, at: deps.now().toISOString() };
}

// --- control ------------------------------------------------------------------------------------------------------

const fill = (template: string, value: string): string => template.split(SCENE_VALUE_PLACEHOLDER).join(value);

/**
 * Writes a control widget's value through the existing services: a Modbus write (modbus-polling), or a command
 * (commands) built from the widget's template. Who may: the device's owner, an admin or a control share; a view
 * share answers 10108 and a device the caller cannot see 10117 (the services' own checks). 83005 for a widget that
 * is not a control. Audited here (`scene_write`) besides the services' own records.
 */
export async function writeWidget(
  deps: Deps,
  poller: ModbusPoller,
  actor: Actor,
  id: number,
  widgetId: string,
  value: number | boolean,
): Promise<SceneWriteResult> {
  const s = await sceneFor(deps.db, actor, id, 'view');
  const w = s.document.widgets.find((x) => x.id === widgetId);
  if (!w) throw new AppError(NOT_FOUND);
  if (!isControlKind(w.kind) || !('write' in w)) throw new AppError(83005);
  const { sn, key } = w.binding;
  const audit = (outcome: string) =>
    writeAudit(deps.db, {
      uid: actor.uid,
      action: 'scene_write',
      target: `scene:${s.id}`,
      ip: actor.ip,
      detail: { widget: widgetId, sn, key, mode: w.write.mode, value, outcome },
    });
  try {
    // The right first, so a view share hears 10108 before anything is sent (and a hidden device 10117).
    await accessibleDevice(deps.db, actor, sn, 'control');
    if (w.kind === 'setpoint' && typeof value === 'number' && (value < w.min || value > w.max))
      throw new AppError(10113, 400, undefined, [
        { field: 'value', message: `between ${w.min} and ${w.max}` },
      ]);
    let reply: unknown;
    if (w.write.mode === 'modbus') {
      reply = await writeVariable(deps, poller, actor, sn, w.write.tag, value);
    } else if (w.write.mode === 'property') {
      const template = w.write.template ?? `{${JSON.stringify(key)}:${SCENE_VALUE_PLACEHOLDER}}`;
      reply = await sendCommand(deps, actor, sn, {
        type: 'string',
        data: fill(template, JSON.stringify(value)),
      });
    } else {
      reply = await sendCommand(deps, actor, sn, {
        type: w.write.type,
        data: fill(w.write.template, String(value)),
      });
    }
    await audit('ok');
    return { mode: w.write.mode, sn, reply };
  } catch (err) {
    await audit(err instanceof AppError ? String(err.code) : 'error');
    throw err;
  }
}

// --- alerts -------------------------------------------------------------------------------------------------------

/**
 * A scene variable for an alert trigger of `ownerUid` (modules/alerts, source `scene`): 11000 when the scene is
 * missing or not the owner's to read, 11009 when it binds no variables, 83003 when `{ sn, key }` is not one of its
 * bindings. The trigger then watches that device property like a device trigger.
 */
export async function sceneVariable(
  db: DbOrTx,
  owner: Actor,
  sceneId: number | null,
  sn: string | null,
  key: string | null,
): Promise<{ sn: string; key: string }> {
  if (sceneId === null)
    throw new AppError(11000, 400, undefined, [{ field: 'scene_id', message: 'required' }]);
  let s: SceneRow;
  try {
    s = await sceneFor(db, owner, sceneId, 'view');
  } catch {
    throw new AppError(11000, 400, undefined, [{ field: 'scene_id', message: 'no such scene' }]);
  }
  const bindings = sceneBindings(s.document);
  if (bindings.length === 0)
    throw new AppError(11009, 400, undefined, [{ field: 'scene_id', message: 'no bound variables' }]);
  const found = bindings.find((b) => b.sn === sn && b.key === key);
  if (!found)
    throw new AppError(83003, 400, undefined, [{ field: 'key', message: 'not a variable of the scene' }]);
  return found;
}
