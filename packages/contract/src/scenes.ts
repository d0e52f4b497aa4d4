/**
 * Scenes (issue 17, docs/scenes.md): live SCADA views. A scene document is a canvas with widgets bound to device
 * properties. A scene MODEL binds its widgets to named slots (`{ slot, key }`, each slot typed by a product key or a
 * data template); a SCENE binds them to concrete devices (`{ sn, key }`). Both are stored and exported in the same
 * versioned format `{ format: 'cellhub.scene', version: 1, canvas, widgets }`. `parseSceneFile` checks an imported
 * file the same way in the browser and on the server: 83001 invalid file (per-field `details`), 83002 unsupported
 * version, 83006 more than SCENE_WIDGETS_MAX widgets.
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { PROPERTY_KEY_RULE, PRODUCT_KEY_RULE, SN_RULE } from './protocol';
import { text } from './text';

export const SCENE_FORMAT = 'cellhub.scene';
/** The version this code writes. */
export const SCENE_VERSION = 1;
/** The versions this code reads. */
export const SCENE_VERSIONS: readonly number[] = [1];
export const SCENE_WIDGETS_MAX = 500;
export const SCENE_SLOTS_MAX = 50;
export const SCENE_THRESHOLDS_MAX = 10;
export const SCENE_CANVAS_MAX = 10_000;
/** Trend widgets show at most this many minutes of history. */
export const SCENE_TREND_MINUTES_MAX = 7 * 24 * 60;
/** The placeholder a write template replaces with the written value (JSON-encoded for `property`). */
export const SCENE_VALUE_PLACEHOLDER = '{{value}}';

export const WIDGET_KINDS = [
  'value',
  'gauge',
  'lamp',
  'switch',
  'setpoint',
  'trend',
  'bar',
  'text',
  'image',
  'link',
  'group',
] as const;
export type WidgetKind = (typeof WIDGET_KINDS)[number];
/** Widgets that write to a device (`POST /api/scenes/:id/widgets/:widgetId/write`; others answer 83005). */
export const CONTROL_WIDGET_KINDS = ['switch', 'setpoint'] as const satisfies readonly WidgetKind[];
/** Widgets that carry a `binding`. */
export const BOUND_WIDGET_KINDS = [
  'value',
  'gauge',
  'lamp',
  'switch',
  'setpoint',
  'trend',
  'bar',
] as const satisfies readonly WidgetKind[];
export const isControlKind = (k: string): boolean => (CONTROL_WIDGET_KINDS as readonly string[]).includes(k);
export const isBoundKind = (k: string): boolean => (BOUND_WIDGET_KINDS as readonly string[]).includes(k);

export const WIDGET_ID_RULE = /^[A-Za-z0-9_-]{1,64}$/;
export const SLOT_NAME_RULE = /^[A-Za-z_][A-Za-z0-9_-]{0,31}$/;
/** `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`. */
export const COLOR_RULE = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

const color = text().regex(COLOR_RULE, 'color_rule');
const num = z.number().finite().min(-1e12).max(1e12);
const coord = z.number().finite().min(-SCENE_CANVAS_MAX).max(SCENE_CANVAS_MAX);
const size = z.number().finite().min(1).max(SCENE_CANVAS_MAX);
const propertyKey = text().regex(PROPERTY_KEY_RULE, 'property_key_rule');
const sn = text().regex(SN_RULE, 'sn_rule');
const slotName = text().regex(SLOT_NAME_RULE, 'slot_name_rule');
const decimals = z.number().int().min(0).max(6);
const unit = text().max(16);

// --- bindings ---------------------------------------------------------------------------------------------------

/** In a model: the slot's device, property `key`. */
export const modelBinding = z.strictObject({ slot: slotName, key: propertyKey });
export type ModelBinding = z.infer<typeof modelBinding>;
/** In a scene: the device `sn`, property `key`. */
export const sceneBinding = z.strictObject({ sn, key: propertyKey });
export type SceneBinding = z.infer<typeof sceneBinding>;
/** A link's target: a device page (by sn in a scene, by slot in a model). */
const modelTarget = z.strictObject({ slot: slotName });
const sceneTarget = z.strictObject({ sn });

// --- how control widgets write ----------------------------------------------------------------------------------

/**
 * How a control widget writes its value:
 * - `modbus`: the platform-polled Modbus variable `tag` of the bound device (its control formula applies).
 * - `property`: a `string` command whose data is `template` with `{{value}}` replaced by the JSON value; the
 *   template defaults to `{"<binding key>":{{value}}}`.
 * - `command`: a command of `type` (`string` or `hex`) whose data is `template` with `{{value}}` replaced by the
 *   value as text (for hex, the value as hex digits is the caller's concern: the template is sent as written).
 */
export const widgetWrite = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('modbus'), tag: propertyKey }),
  z.strictObject({ mode: z.literal('property'), template: text().min(1).max(4096).optional() }),
  z.strictObject({
    mode: z.literal('command'),
    type: z.enum(['string', 'hex']).default('string'),
    template: text().min(1).max(4096),
  }),
]);
export type WidgetWrite = z.infer<typeof widgetWrite>;
export const WRITE_MODES = ['modbus', 'property', 'command'] as const;
export type WriteMode = (typeof WRITE_MODES)[number];

// --- widgets ----------------------------------------------------------------------------------------------------

export const widgetStyle = z
  .strictObject({
    color: color.optional(),
    background: color.optional(),
    border_color: color.optional(),
    border_width: z.number().min(0).max(50).optional(),
    radius: z.number().min(0).max(500).optional(),
    font_size: z.number().min(6).max(200).optional(),
    font_weight: z.enum(['normal', 'bold']).optional(),
    align: z.enum(['left', 'center', 'right']).optional(),
    opacity: z.number().min(0).max(1).optional(),
  })
  .default({});
export type WidgetStyle = z.infer<typeof widgetStyle>;

/** A colour from `from` upward (the highest `from` not above the value wins). */
export const threshold = z.strictObject({ from: num, color });
export type Threshold = z.infer<typeof threshold>;
const thresholds = z.array(threshold).max(SCENE_THRESHOLDS_MAX).default([]);

/** A lamp is on when `value <op> operand` (`truthy`: any value but 0, false, '' ). */
export const LAMP_OPS = ['truthy', 'eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
export const lampCondition = z.strictObject({
  op: z.enum(LAMP_OPS).default('truthy'),
  operand: z.union([num, z.boolean(), text().max(64)]).optional(),
});

const writeValue = z.union([num, z.boolean()]);

function widgetSchemas<B extends z.ZodType, T extends z.ZodType>(binding: B, target: T) {
  const base = {
    id: text().regex(WIDGET_ID_RULE, 'widget_id_rule'),
    name: text().max(64).optional(),
    x: coord,
    y: coord,
    w: size,
    h: size,
    rotation: z.number().finite().min(-360).max(360).optional(),
    z: z.number().int().min(-10_000).max(10_000).default(0),
    style: widgetStyle,
  };
  const minMax = { min: num.default(0), max: num.default(100) };
  return z.discriminatedUnion('kind', [
    z.strictObject({
      ...base,
      kind: z.literal('value'),
      binding,
      unit: unit.default(''),
      decimals: decimals.default(1),
      thresholds,
    }),
    z.strictObject({
      ...base,
      kind: z.literal('gauge'),
      binding,
      ...minMax,
      unit: unit.default(''),
      decimals: decimals.default(1),
      thresholds,
    }),
    z.strictObject({
      ...base,
      kind: z.literal('lamp'),
      binding,
      condition: lampCondition.default({ op: 'truthy' }),
      on_color: color.default('#00b42a'),
      off_color: color.default('#86909c'),
    }),
    z.strictObject({
      ...base,
      kind: z.literal('switch'),
      binding,
      write: widgetWrite,
      on_value: writeValue.default(true),
      off_value: writeValue.default(false),
      confirm: z.boolean().default(true),
    }),
    z.strictObject({
      ...base,
      kind: z.literal('setpoint'),
      binding,
      write: widgetWrite,
      ...minMax,
      step: z.number().finite().positive().max(1e9).default(1),
      unit: unit.default(''),
      confirm: z.boolean().default(true),
    }),
    z.strictObject({
      ...base,
      kind: z.literal('trend'),
      binding,
      minutes: z.number().int().min(1).max(SCENE_TREND_MINUTES_MAX).default(60),
      line_color: color.optional(),
    }),
    z.strictObject({
      ...base,
      kind: z.literal('bar'),
      binding,
      ...minMax,
      orientation: z.enum(['vertical', 'horizontal']).default('vertical'),
      bar_color: color.optional(),
    }),
    z.strictObject({ ...base, kind: z.literal('text'), text: text().max(500) }),
    /** `file`: an image uploaded to the scene (`POST /api/scenes/:id/images`). */
    z.strictObject({ ...base, kind: z.literal('image'), file: text().min(1).max(128) }),
    z.strictObject({ ...base, kind: z.literal('link'), target, label: text().max(64).default('') }),
    /** Children are other widgets of the document, by id; their coordinates stay canvas coordinates. */
    z.strictObject({
      ...base,
      kind: z.literal('group'),
      children: z.array(text().regex(WIDGET_ID_RULE, 'widget_id_rule')).max(SCENE_WIDGETS_MAX),
    }),
  ]);
}

export const sceneWidget = widgetSchemas(sceneBinding, sceneTarget);
export type SceneWidget = z.infer<typeof sceneWidget>;
export type SceneWidgetInput = z.input<typeof sceneWidget>;
export const modelWidget = widgetSchemas(modelBinding, modelTarget);
export type ModelWidget = z.infer<typeof modelWidget>;
export type ModelWidgetInput = z.input<typeof modelWidget>;

export const sceneCanvas = z.strictObject({
  width: z.number().int().min(100).max(SCENE_CANVAS_MAX),
  height: z.number().int().min(100).max(SCENE_CANVAS_MAX),
  /** An image uploaded to the scene (`POST /api/scenes/:id/images`); models carry none. */
  background: text().min(1).max(128).nullable().optional(),
  background_color: color.optional(),
  /** Grid step in pixels; 0: no grid. */
  grid: z.number().int().min(0).max(200).default(10),
});
export type SceneCanvas = z.infer<typeof sceneCanvas>;

/** Widget ids unique; group children exist, are not groups' ancestors, and belong to one group at most. */
function checkWidgets(
  widgets: { id: string; kind: string; children?: string[] }[],
  ctx: z.RefinementCtx,
): void {
  const index = new Map<string, number>();
  widgets.forEach((w, i) => {
    if (index.has(w.id))
      ctx.addIssue({ code: 'custom', path: ['widgets', i, 'id'], message: 'duplicate_id' });
    else index.set(w.id, i);
  });
  const parent = new Map<string, string>();
  widgets.forEach((w, i) => {
    if (w.kind !== 'group' || !w.children) return;
    w.children.forEach((c, j) => {
      const path = ['widgets', i, 'children', j];
      if (!index.has(c) || c === w.id) ctx.addIssue({ code: 'custom', path, message: 'unknown_child' });
      else if (parent.has(c)) ctx.addIssue({ code: 'custom', path, message: 'child_in_two_groups' });
      else parent.set(c, w.id);
    });
  });
  // A cycle: following parents from a group comes back to it.
  for (const start of parent.keys()) {
    let at: string | undefined = parent.get(start);
    for (let steps = 0; at !== undefined && steps <= widgets.length; steps++) {
      if (at === start) {
        ctx.addIssue({ code: 'custom', path: ['widgets', index.get(start)!, 'id'], message: 'group_cycle' });
        break;
      }
      at = parent.get(at);
    }
  }
}

const documentBase = {
  format: z.literal(SCENE_FORMAT),
  version: z.literal(SCENE_VERSION),
  canvas: sceneCanvas,
};

/** A scene's document: widgets bound to `{ sn, key }`. */
export const sceneDocument = z
  .strictObject({ ...documentBase, widgets: z.array(sceneWidget).max(SCENE_WIDGETS_MAX) })
  .superRefine((d, ctx) => checkWidgets(d.widgets, ctx));
export type SceneDocument = z.infer<typeof sceneDocument>;
export type SceneDocumentInput = z.input<typeof sceneDocument>;
/** A model's document: widgets bound to `{ slot, key }`. */
export const modelDocument = z
  .strictObject({ ...documentBase, widgets: z.array(modelWidget).max(SCENE_WIDGETS_MAX) })
  .superRefine((d, ctx) => checkWidgets(d.widgets, ctx));
export type ModelDocument = z.infer<typeof modelDocument>;
export type ModelDocumentInput = z.input<typeof modelDocument>;

/** A model's slot: a device of product `product_key`, or a device with data template `template_id` applied. */
export const sceneSlot = z
  .strictObject({
    name: slotName,
    label: text().max(64).default(''),
    product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule').optional(),
    template_id: z.number().int().positive().max(2_147_483_647).optional(),
  })
  .refine((s) => (s.product_key === undefined) !== (s.template_id === undefined), {
    message: 'product_key_or_template_id',
    path: ['product_key'],
  });
export type SceneSlot = z.infer<typeof sceneSlot>;
export type SceneSlotInput = z.input<typeof sceneSlot>;
export const sceneSlots = z
  .array(sceneSlot)
  .max(SCENE_SLOTS_MAX)
  .superRefine((slots, ctx) => {
    const seen = new Set<string>();
    slots.forEach((s, i) => {
      if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'duplicate_slot' });
      seen.add(s.name);
    });
  });

/** The slot names a model document uses (bindings and link targets). */
export function modelSlotsUsed(doc: ModelDocument): { path: (string | number)[]; slot: string }[] {
  const out: { path: (string | number)[]; slot: string }[] = [];
  doc.widgets.forEach((w, i) => {
    if ('binding' in w) out.push({ path: ['widgets', i, 'binding', 'slot'], slot: w.binding.slot });
    if (w.kind === 'link') out.push({ path: ['widgets', i, 'target', 'slot'], slot: w.target.slot });
  });
  return out;
}

/** The `{ sn, key }` pairs a scene document reads (deduplicated, in widget order). */
export function sceneBindings(doc: SceneDocument): SceneBinding[] {
  const seen = new Set<string>();
  const out: SceneBinding[] = [];
  for (const w of doc.widgets) {
    if (!('binding' in w)) continue;
    const k = `${w.binding.sn}\u0001${w.binding.key}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ sn: w.binding.sn, key: w.binding.key });
  }
  return out;
}

/** Every device a scene document names (bindings and links), deduplicated. */
export function sceneDeviceSns(doc: SceneDocument): string[] {
  const out = new Set<string>();
  for (const w of doc.widgets) {
    if ('binding' in w) out.add(w.binding.sn);
    if (w.kind === 'link') out.add(w.target.sn);
  }
  return [...out];
}

/** An empty document to start from. */
export const emptySceneDocument = (width = 1280, height = 720): SceneDocument => ({
  format: SCENE_FORMAT,
  version: SCENE_VERSION,
  canvas: { width, height, grid: 10 },
  widgets: [],
});

// --- export files -----------------------------------------------------------------------------------------------

/**
 * An exported file: the document plus `kind`, `name`, `remark` and, for a model, its `slots`. A scene's background
 * and image widgets name files of the scene they came from; an import keeps the ids only when they resolve on the
 * importing server, so exporting a scene does not carry its images.
 */
export const sceneFile = z.strictObject({
  ...documentBase,
  kind: z.literal('scene'),
  name: text().trim().min(1).max(64),
  remark: text().trim().max(200).default(''),
  widgets: z.array(sceneWidget).max(SCENE_WIDGETS_MAX),
});
export const modelFile = z.strictObject({
  ...documentBase,
  kind: z.literal('model'),
  name: text().trim().min(1).max(64),
  remark: text().trim().max(200).default(''),
  slots: sceneSlots,
  widgets: z.array(modelWidget).max(SCENE_WIDGETS_MAX),
});
export type SceneFile = z.infer<typeof sceneFile>;
export type ModelFile = z.infer<typeof modelFile>;

/** One refused field: `field` is the dotted zod path (`widgets.3.binding.sn`), as the other import routes. */
export interface SceneFileIssue {
  field: string;
  message: string;
}
export type SceneFileResult<T> =
  { ok: true; file: T } | { ok: false; code: 83001 | 83002 | 83006; details: SceneFileIssue[] };

const issuesOf = (issues: z.core.$ZodIssue[]): SceneFileIssue[] =>
  issues.slice(0, 100).map((i) => ({ field: i.path.map(String).join('.') || 'file', message: i.message }));

/**
 * Check an imported file (already JSON-parsed) of `kind`: not an object / wrong `format` / wrong kind -> 83001;
 * a `version` this code does not read -> 83002; more than SCENE_WIDGETS_MAX widgets -> 83006; any other problem
 * -> 83001 with one `details` entry per field. A model's bindings must name its slots.
 */
export function parseSceneFile(input: unknown, kind: 'scene'): SceneFileResult<SceneFile>;
export function parseSceneFile(input: unknown, kind: 'model'): SceneFileResult<ModelFile>;
export function parseSceneFile(
  input: unknown,
  kind: 'scene' | 'model',
): SceneFileResult<SceneFile> | SceneFileResult<ModelFile> {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return { ok: false, code: 83001, details: [{ field: 'file', message: 'not_an_object' }] };
  const o = input as Record<string, unknown>;
  if (o.format !== SCENE_FORMAT)
    return { ok: false, code: 83001, details: [{ field: 'format', message: `expected ${SCENE_FORMAT}` }] };
  if (typeof o.version !== 'number' || !SCENE_VERSIONS.includes(o.version))
    return {
      ok: false,
      code: 83002,
      details: [{ field: 'version', message: `supported: ${SCENE_VERSIONS.join(', ')}` }],
    };
  if (o.kind !== kind)
    return { ok: false, code: 83001, details: [{ field: 'kind', message: `expected ${kind}` }] };
  if (Array.isArray(o.widgets) && o.widgets.length > SCENE_WIDGETS_MAX)
    return {
      ok: false,
      code: 83006,
      details: [{ field: 'widgets', message: `at most ${SCENE_WIDGETS_MAX}` }],
    };
  if (kind === 'scene') {
    const r = sceneFile.superRefine((d, ctx) => checkWidgets(d.widgets, ctx)).safeParse(input);
    return r.success
      ? { ok: true, file: r.data }
      : { ok: false, code: 83001, details: issuesOf(r.error.issues) };
  }
  const r = modelFile
    .superRefine((d, ctx) => {
      checkWidgets(d.widgets, ctx);
      const names = new Set(d.slots.map((s) => s.name));
      for (const u of modelSlotsUsed(d as unknown as ModelDocument))
        if (!names.has(u.slot)) ctx.addIssue({ code: 'custom', path: u.path, message: 'unknown_slot' });
    })
    .safeParse(input);
  return r.success
    ? { ok: true, file: r.data }
    : { ok: false, code: 83001, details: issuesOf(r.error.issues) };
}

// --- the API ----------------------------------------------------------------------------------------------------

const id = z.coerce.number().int().positive().max(2_147_483_647);
export const sceneIdParams = z.object({ id });
export const widgetParams = sceneIdParams.extend({
  widgetId: text().regex(WIDGET_ID_RULE, 'widget_id_rule'),
});
export const sceneImageParams = sceneIdParams.extend({ fileId: text().regex(/^[A-Za-z0-9_.-]{1,128}$/) });

const name = text().trim().min(1).max(64);
const remark = text().trim().max(200);
const iso = text();

export const sceneListQuery = pageQuery.extend({ keyword: text().trim().max(64).optional() });
export type SceneListQuery = z.input<typeof sceneListQuery>;

/** POST /api/scene-models. A model's bindings must name its slots (83001 with the widget's path otherwise). */
export const sceneModelBody = z.object({
  name,
  remark: remark.default(''),
  slots: sceneSlots.default([]),
  document: modelDocument.optional(),
});
export type SceneModelBody = z.input<typeof sceneModelBody>;
export const sceneModelUpdateBody = z.object({
  name: name.optional(),
  remark: remark.optional(),
  slots: sceneSlots.optional(),
  document: modelDocument.optional(),
});
export type SceneModelUpdateBody = z.input<typeof sceneModelUpdateBody>;
export const sceneCopyBody = z.object({ name: name.optional() });

export const sceneModelItem = z.object({
  id: z.number().int(),
  uid: z.number().int(),
  owner: text(),
  name: text(),
  remark: text(),
  slots: z.array(sceneSlot),
  widget_count: z.number().int(),
  /** Scenes made from this model. */
  scene_count: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type SceneModelItem = z.infer<typeof sceneModelItem>;
export const sceneModelDetail = sceneModelItem.extend({ document: modelDocument });
export type SceneModelDetail = z.infer<typeof sceneModelDetail>;

/** POST /api/scenes. */
export const sceneBody = z.object({
  name,
  remark: remark.default(''),
  document: sceneDocument.optional(),
});
export type SceneBody = z.input<typeof sceneBody>;
export const sceneUpdateBody = z.object({
  name: name.optional(),
  remark: remark.optional(),
  document: sceneDocument.optional(),
});
export type SceneUpdateBody = z.input<typeof sceneUpdateBody>;

/**
 * POST /api/scenes/from-model: a scene from a model, each slot bound to one device (`bindings`: slot name -> sn).
 * Every slot needs a device the caller may view (10107 otherwise) that is of the slot's product or has the slot's
 * template applied (83003 with `details: [{ field: 'bindings.<slot>', message }]` otherwise).
 */
export const sceneFromModelBody = z.object({
  model_id: z.number().int().positive().max(2_147_483_647),
  name,
  remark: remark.default(''),
  bindings: z.record(slotName, sn),
});
export type SceneFromModelBody = z.input<typeof sceneFromModelBody>;

/** The caller's right on a scene: `owner` (or admin) edits and shares; `view` reads through a scene share. */
export const SCENE_ACCESS = ['owner', 'view'] as const;
export type SceneAccess = (typeof SCENE_ACCESS)[number];

export const sceneItem = z.object({
  id: z.number().int(),
  uid: z.number().int(),
  owner: text(),
  name: text(),
  remark: text(),
  model_id: z.number().int().nullable(),
  model_name: text().nullable(),
  widget_count: z.number().int(),
  device_count: z.number().int(),
  access: z.enum(SCENE_ACCESS),
  createdat: iso,
  updatedat: iso,
});
export type SceneItem = z.infer<typeof sceneItem>;

/**
 * A device the scene names. `visible`: the caller may view it (values of invisible devices are never sent; their
 * name reads as the sn). `control`: the caller may write to it (owner, admin or a control share).
 */
export const sceneDevice = z.object({
  sn: text(),
  name: text(),
  product_key: text(),
  online: z.number().int(),
  visible: z.boolean(),
  control: z.boolean(),
});
export type SceneDevice = z.infer<typeof sceneDevice>;
export const sceneDetail = sceneItem.extend({ document: sceneDocument, devices: z.array(sceneDevice) });
export type SceneDetail = z.infer<typeof sceneDetail>;

/**
 * GET /api/scenes/:id/values: one entry per bound `{ sn, key }` the caller may view. `value`/`ts` null: never
 * reported. `cycle_s`: the expected report interval (the data template variable's sampling cycle, else null) so the
 * console can grey a value older than about twice its cycle. `online` is the device's.
 */
export const sceneValue = z.object({
  sn: text(),
  key: text(),
  value: z.union([z.number(), text(), z.boolean()]).nullable(),
  ts: iso.nullable(),
  cycle_s: z.number().int().nullable(),
  online: z.number().int(),
});
export type SceneValue = z.infer<typeof sceneValue>;
export const sceneValues = z.object({ items: z.array(sceneValue), at: iso });
export type SceneValues = z.infer<typeof sceneValues>;

/** POST /api/scenes/:id/widgets/:widgetId/write. */
export const sceneWriteBody = z.object({ value: writeValue });
export type SceneWriteBody = z.infer<typeof sceneWriteBody>;
/** The device's reply: for `modbus` the exchange (as the modbus write route), for commands the command record. */
export const sceneWriteResult = z.object({
  mode: z.enum(WRITE_MODES),
  sn: text(),
  reply: z.unknown(),
});
export type SceneWriteResult = z.infer<typeof sceneWriteResult>;

/** A scene's read-only share list (scene-level; device rights still apply to each bound device). */
export const sceneShareBody = z.object({ to: text().trim().min(1).max(64) });
export type SceneShareBody = z.input<typeof sceneShareBody>;
export const sceneShareItem = z.object({
  uid: z.number().int(),
  username: text(),
  right: z.literal('view'),
  createdat: iso,
});
export type SceneShareItem = z.infer<typeof sceneShareItem>;
export const sceneShareParams = sceneIdParams.extend({ uid: id });

/** Images of a scene (background, image widgets): PNG, JPEG, GIF or WebP by their bytes (never SVG). */
export const SCENE_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const SCENE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const SCENE_IMAGES_MAX = 50;
/** POST /api/scenes/:id/images answers the file id to put in `canvas.background` or an image widget's `file`. */
export const sceneImageResult = z.object({ file: text(), content_type: text(), size: z.number().int() });
export type SceneImageResult = z.infer<typeof sceneImageResult>;
