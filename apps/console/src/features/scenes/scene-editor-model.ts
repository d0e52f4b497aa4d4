/**
 * The scene editor's document operations, pure: every edit takes a document and returns a new one (structural
 * sharing), so the undo stack is a list of documents and the React layer only draws.
 *
 * Coordinates are canvas pixels, a group's children's too (packages/contract/src/scenes.ts).
 */

import {
  BOUND_WIDGET_KINDS,
  CONTROL_WIDGET_KINDS,
  SCENE_FORMAT,
  SCENE_VERSION,
  WIDGET_KINDS,
  type ModelDocument,
  type ModelWidget,
  type SceneCanvas,
  type SceneDocument,
  type SceneWidget,
  type Threshold,
  type WidgetKind,
} from '@cellhub/contract/scenes';

export { WIDGET_KINDS, type WidgetKind };

/** Kinds the palette offers (a group is made from a selection, not dropped). */
export const PALETTE_KINDS: readonly WidgetKind[] = WIDGET_KINDS.filter((k) => k !== 'group');
export const CONTROL_KINDS: readonly WidgetKind[] = CONTROL_WIDGET_KINDS;
export const BOUND_KINDS: readonly WidgetKind[] = BOUND_WIDGET_KINDS;

/** A widget of a scene (`{sn,key}`) or of a model (`{slot,key}`); the editor handles both alike. */
export type Widget = SceneWidget | ModelWidget;
export type Binding = { sn?: string; slot?: string; key: string };

/** The edited document: a scene's or a model's. Groups list their children by id; all coordinates are canvas ones. */
export interface SceneDoc {
  format: typeof SCENE_FORMAT;
  version: typeof SCENE_VERSION;
  canvas: SceneCanvas;
  /** Drawing order (the last on top); `z` is renumbered from it on layer changes. */
  widgets: Widget[];
}
export type { ModelDocument, SceneDocument, Threshold };

export const DEFAULT_SIZE: Record<WidgetKind, [number, number]> = {
  value: [140, 56],
  gauge: [140, 140],
  lamp: [48, 48],
  switch: [96, 44],
  setpoint: [200, 56],
  trend: [320, 160],
  bar: [60, 180],
  text: [160, 40],
  image: [160, 120],
  link: [140, 36],
  group: [10, 10],
};

export function emptyDoc(width = 1920, height = 1080): SceneDoc {
  return { format: SCENE_FORMAT, version: SCENE_VERSION, canvas: { width, height, grid: 10 }, widgets: [] };
}

/** Draw order: by `z`, then by position in the list. */
export function drawOrder(doc: SceneDoc): Widget[] {
  return doc.widgets
    .map((w, i) => [w, i] as const)
    .sort((a, b) => (a[0].z ?? 0) - (b[0].z ?? 0) || a[1] - b[1])
    .map(([w]) => w);
}

/** child id -> its group's id. */
export function parentsOf(doc: SceneDoc): Map<string, string> {
  const out = new Map<string, string>();
  for (const w of doc.widgets) if (w.kind === 'group') for (const c of w.children) out.set(c, w.id);
  return out;
}

/** The outermost group holding `id` (or `id` itself): what a click selects. */
export function rootOf(doc: SceneDoc, id: string, parents = parentsOf(doc)): string {
  let at = id;
  for (let i = 0; i < doc.widgets.length && parents.has(at); i++) at = parents.get(at)!;
  return at;
}

/** `ids` with every group's descendants added. */
export function withDescendants(doc: SceneDoc, ids: Iterable<string>): Set<string> {
  const byId = new Map(doc.widgets.map((w) => [w.id, w]));
  const out = new Set<string>();
  const stack = [...ids];
  while (stack.length) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    const w = byId.get(id);
    if (w?.kind === 'group') stack.push(...w.children);
  }
  return out;
}

let seq = 0;
/** A widget id unique within the document. */
export function newId(doc: SceneDoc, taken?: Set<string>): string {
  const used = taken ?? new Set(doc.widgets.map((w) => w.id));
  let id: string;
  do {
    seq += 1;
    id = `w${Date.now().toString(36)}${seq.toString(36)}`;
  } while (used.has(id));
  used.add(id);
  return id;
}

export function snap(v: number, grid: number): number {
  if (!grid || grid <= 1) return Math.round(v);
  return Math.round(v / grid) * grid;
}

export function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** A new widget of `kind` centred on (x, y), on the grid and inside the canvas, with the contract's defaults. */
export function createWidget(
  doc: SceneDoc,
  kind: WidgetKind,
  x: number,
  y: number,
  mode: 'scene' | 'model',
): Widget {
  const [w, h] = DEFAULT_SIZE[kind];
  const g = doc.canvas.grid ?? 0;
  const base = {
    id: newId(doc),
    x: clamp(snap(x - w / 2, g), 0, Math.max(0, doc.canvas.width - w)),
    y: clamp(snap(y - h / 2, g), 0, Math.max(0, doc.canvas.height - h)),
    w,
    h,
    z: nextZ(doc),
    style: {},
  };
  const binding = mode === 'model' ? { slot: '', key: '' } : { sn: '', key: '' };
  const target = mode === 'model' ? { slot: '' } : { sn: '' };
  const minMax = { min: 0, max: 100 };
  const write = { mode: 'property' as const };
  let out: unknown;
  switch (kind) {
    case 'value':
      out = { ...base, kind, binding, unit: '', decimals: 1, thresholds: [] };
      break;
    case 'gauge':
      out = { ...base, kind, binding, ...minMax, unit: '', decimals: 1, thresholds: [] };
      break;
    case 'lamp':
      out = {
        ...base,
        kind,
        binding,
        condition: { op: 'truthy' },
        on_color: '#00b42a',
        off_color: '#86909c',
      };
      break;
    case 'switch':
      out = { ...base, kind, binding, write, on_value: true, off_value: false, confirm: true };
      break;
    case 'setpoint':
      out = { ...base, kind, binding, write, ...minMax, step: 1, unit: '', confirm: true };
      break;
    case 'trend':
      out = { ...base, kind, binding, minutes: 10 };
      break;
    case 'bar':
      out = { ...base, kind, binding, ...minMax, orientation: 'vertical' };
      break;
    case 'text':
      out = { ...base, kind, text: 'Text' };
      break;
    case 'image':
      out = { ...base, kind, file: '' };
      break;
    case 'link':
      out = { ...base, kind, target, label: '' };
      break;
    case 'group':
      out = { ...base, kind, children: [] };
      break;
  }
  return out as Widget;
}

function nextZ(doc: SceneDoc): number {
  return doc.widgets.reduce((m, w) => Math.max(m, w.z ?? 0), -1) + 1;
}

export function addWidget(doc: SceneDoc, widget: Widget): SceneDoc {
  return { ...doc, widgets: [...doc.widgets, widget] };
}

function mapIds(doc: SceneDoc, ids: ReadonlySet<string>, fn: (w: Widget) => Widget): SceneDoc {
  let changed = false;
  const widgets = doc.widgets.map((w) => {
    if (!ids.has(w.id)) return w;
    const n = fn(w);
    if (n !== w) changed = true;
    return n;
  });
  return changed ? { ...doc, widgets } : doc;
}

export function findWidget(doc: SceneDoc, id: string): Widget | undefined {
  return doc.widgets.find((w) => w.id === id);
}

/** Changes fields of one widget (the property panel). */
export function updateWidget(doc: SceneDoc, id: string, patch: Record<string, unknown>): SceneDoc {
  return mapIds(doc, new Set([id]), (w) => ({ ...w, ...patch }) as Widget);
}

/** Moves by (dx, dy), groups with their children; with `snapTo`, the first widget lands on the grid. */
export function moveWidgets(
  doc: SceneDoc,
  ids: readonly string[],
  dx: number,
  dy: number,
  snapTo = 0,
): SceneDoc {
  const first = doc.widgets.find((w) => w.id === ids[0]) ?? doc.widgets.find((w) => ids.includes(w.id));
  if (!first) return doc;
  let ddx = dx;
  let ddy = dy;
  if (snapTo > 1) {
    ddx = snap(first.x + dx, snapTo) - first.x;
    ddy = snap(first.y + dy, snapTo) - first.y;
  }
  if (ddx === 0 && ddy === 0) return doc;
  return mapIds(doc, withDescendants(doc, ids), (w) => ({ ...w, x: w.x + ddx, y: w.y + ddy }));
}

export type Handle = 'n' | 's' | 'e' | 'w' | 'ne' | 'nw' | 'se' | 'sw';
export const HANDLES: readonly Handle[] = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w'];
export const MIN_SIZE = 10;

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The rectangle after dragging `handle` of `r` by (dx, dy), edges snapped to the grid, never below MIN_SIZE. */
export function resizeRect(r: Rect, handle: Handle, dx: number, dy: number, grid = 0): Rect {
  let left = r.x;
  let top = r.y;
  let right = r.x + r.w;
  let bottom = r.y + r.h;
  const s = (v: number) => (grid > 1 ? snap(v, grid) : Math.round(v));
  if (handle.includes('w')) left = Math.min(s(left + dx), right - MIN_SIZE);
  if (handle.includes('e')) right = Math.max(s(right + dx), left + MIN_SIZE);
  if (handle.includes('n')) top = Math.min(s(top + dy), bottom - MIN_SIZE);
  if (handle.includes('s')) bottom = Math.max(s(bottom + dy), top + MIN_SIZE);
  return { x: left, y: top, w: right - left, h: bottom - top };
}

/** Resizes `base` (the widget as the drag began) of `doc`; a group scales its descendants with it. */
export function resizeWidget(
  doc: SceneDoc,
  base: SceneDoc,
  id: string,
  handle: Handle,
  dx: number,
  dy: number,
): SceneDoc {
  const w0 = findWidget(base, id);
  if (!w0) return doc;
  const r = resizeRect(w0, handle, dx, dy, base.canvas.grid ?? 0);
  if (w0.kind !== 'group') return mapIds(doc, new Set([id]), (w) => ({ ...w, ...r }));
  const sx = r.w / w0.w;
  const sy = r.h / w0.h;
  const ids = withDescendants(base, [id]);
  const orig = new Map(base.widgets.map((w) => [w.id, w]));
  return mapIds(doc, ids, (w) => {
    const o = orig.get(w.id)!;
    if (w.id === id) return { ...w, ...r };
    return {
      ...w,
      x: Math.round(r.x + (o.x - w0.x) * sx),
      y: Math.round(r.y + (o.y - w0.y) * sy),
      w: Math.max(1, Math.round(o.w * sx)),
      h: Math.max(1, Math.round(o.h * sy)),
    };
  });
}

export type AlignMode = 'left' | 'center' | 'right' | 'top' | 'middle' | 'bottom';

export function boundsOf(rects: readonly Rect[]): Rect {
  const x = Math.min(...rects.map((r) => r.x));
  const y = Math.min(...rects.map((r) => r.y));
  const right = Math.max(...rects.map((r) => r.x + r.w));
  const bottom = Math.max(...rects.map((r) => r.y + r.h));
  return { x, y, w: right - x, h: bottom - y };
}

/** Moves each selected widget (a group with its children) by its own offset. */
function shiftEach(doc: SceneDoc, offsets: Map<string, [number, number]>): SceneDoc {
  let out = doc;
  for (const [id, [dx, dy]] of offsets) if (dx || dy) out = moveWidgets(out, [id], dx, dy);
  return out;
}

/** Aligns the selection to its own bounds (two or more widgets). */
export function align(doc: SceneDoc, ids: readonly string[], mode: AlignMode): SceneDoc {
  const set = new Set(ids);
  const sel = doc.widgets.filter((w) => set.has(w.id));
  if (sel.length < 2) return doc;
  const b = boundsOf(sel);
  const off = new Map<string, [number, number]>();
  for (const w of sel) {
    const tx = {
      left: b.x,
      right: b.x + b.w - w.w,
      center: Math.round(b.x + (b.w - w.w) / 2),
    } as Record<string, number>;
    const ty = {
      top: b.y,
      bottom: b.y + b.h - w.h,
      middle: Math.round(b.y + (b.h - w.h) / 2),
    } as Record<string, number>;
    off.set(w.id, [mode in tx ? tx[mode]! - w.x : 0, mode in ty ? ty[mode]! - w.y : 0]);
  }
  return shiftEach(doc, off);
}

/** Equal gaps between three or more widgets along an axis; the outermost two stay put. */
export function distribute(doc: SceneDoc, ids: readonly string[], axis: 'h' | 'v'): SceneDoc {
  const set = new Set(ids);
  const sel = doc.widgets.filter((w) => set.has(w.id));
  if (sel.length < 3) return doc;
  const pos = (w: Rect) => (axis === 'h' ? w.x : w.y);
  const size = (w: Rect) => (axis === 'h' ? w.w : w.h);
  const sorted = [...sel].sort((a, b) => pos(a) - pos(b));
  const start = pos(sorted[0]!);
  const last = sorted[sorted.length - 1]!;
  const end = pos(last) + size(last);
  const total = sorted.reduce((s, w) => s + size(w), 0);
  const gap = (end - start - total) / (sorted.length - 1);
  const off = new Map<string, [number, number]>();
  let cursor = start;
  for (const w of sorted) {
    const d = Math.round(cursor) - pos(w);
    off.set(w.id, axis === 'h' ? [d, 0] : [0, d]);
    cursor += size(w) + gap;
  }
  return shiftEach(doc, off);
}

/** Reorders and renumbers `z` from the new drawing order. */
function restack(doc: SceneDoc, order: Widget[]): SceneDoc {
  return { ...doc, widgets: order.map((w, i) => ((w.z ?? 0) === i ? w : { ...w, z: i })) };
}

export function bringToFront(doc: SceneDoc, ids: readonly string[]): SceneDoc {
  const set = withDescendants(doc, ids);
  const order = drawOrder(doc);
  const moved = order.filter((w) => set.has(w.id));
  return moved.length ? restack(doc, [...order.filter((w) => !set.has(w.id)), ...moved]) : doc;
}

export function sendToBack(doc: SceneDoc, ids: readonly string[]): SceneDoc {
  const set = withDescendants(doc, ids);
  const order = drawOrder(doc);
  const moved = order.filter((w) => set.has(w.id));
  return moved.length ? restack(doc, [...moved, ...order.filter((w) => !set.has(w.id))]) : doc;
}

/** Deletes widgets, groups with their children; survivors' group lists forget them. */
export function deleteWidgets(doc: SceneDoc, ids: readonly string[]): SceneDoc {
  const set = withDescendants(doc, ids);
  if (!doc.widgets.some((w) => set.has(w.id))) return doc;
  const widgets = doc.widgets
    .filter((w) => !set.has(w.id))
    .map((w) =>
      w.kind === 'group' && w.children.some((c) => set.has(c))
        ? { ...w, children: w.children.filter((c) => !set.has(c)) }
        : w,
    );
  return { ...doc, widgets };
}

/** Groups two or more top-level widgets into a new `group` widget covering them. */
export function groupWidgets(doc: SceneDoc, ids: readonly string[]): { doc: SceneDoc; id?: string } {
  const set = new Set(ids);
  const sel = doc.widgets.filter((w) => set.has(w.id));
  if (sel.length < 2) return { doc };
  const all = doc.widgets.filter((w) => withDescendants(doc, ids).has(w.id));
  const b = boundsOf(all);
  const id = newId(doc);
  const group = {
    id,
    kind: 'group',
    ...b,
    z: nextZ(doc),
    style: {},
    children: sel.map((w) => w.id),
  } as Widget;
  return { doc: { ...doc, widgets: [...doc.widgets, group] }, id };
}

/** Dissolves the selected groups; their children become the selection. */
export function ungroupWidgets(doc: SceneDoc, ids: readonly string[]): { doc: SceneDoc; ids: string[] } {
  const set = new Set(ids);
  const groups = doc.widgets.filter((w) => set.has(w.id) && w.kind === 'group');
  if (!groups.length) return { doc, ids: [...ids] };
  const out = groups.flatMap((g) => (g.kind === 'group' ? g.children : []));
  const gone = new Set(groups.map((g) => g.id));
  return { doc: { ...doc, widgets: doc.widgets.filter((w) => !gone.has(w.id)) }, ids: out };
}

/** The selection (groups with their children) as a list to keep on the clipboard. */
export function copyWidgets(doc: SceneDoc, ids: readonly string[]): Widget[] {
  const set = withDescendants(doc, ids);
  return structuredClone(doc.widgets.filter((w) => set.has(w.id)));
}

/** Pastes copies with fresh ids (groups point at their copied children), offset; returns the new top-level ids. */
export function pasteWidgets(
  doc: SceneDoc,
  clip: readonly Widget[],
  offset = 20,
): { doc: SceneDoc; ids: string[] } {
  const taken = new Set(doc.widgets.map((w) => w.id));
  const map = new Map(clip.map((w) => [w.id, newId(doc, taken)]));
  let z = nextZ(doc);
  const copies = clip.map((w) => {
    const c = structuredClone(w) as Widget;
    const n = { ...c, id: map.get(w.id)!, x: c.x + offset, y: c.y + offset, z: z++ } as Widget;
    if (n.kind === 'group') n.children = n.children.map((ch) => map.get(ch) ?? ch);
    return n;
  });
  const childIds = new Set(copies.flatMap((c) => (c.kind === 'group' ? c.children : [])));
  return {
    doc: { ...doc, widgets: [...doc.widgets, ...copies] },
    ids: copies.filter((c) => !childIds.has(c.id)).map((c) => c.id),
  };
}

/** Top-level widgets (not inside a group) that intersect the rectangle (box selection). */
export function widgetsInRect(doc: SceneDoc, r: Rect): string[] {
  const r2 = { x: Math.min(r.x, r.x + r.w), y: Math.min(r.y, r.y + r.h), w: Math.abs(r.w), h: Math.abs(r.h) };
  const parents = parentsOf(doc);
  return doc.widgets
    .filter((w) => !parents.has(w.id))
    .filter((w) => w.x < r2.x + r2.w && w.x + w.w > r2.x && w.y < r2.y + r2.h && w.y + w.h > r2.y)
    .map((w) => w.id);
}

/** The zoom at which the canvas fits the viewport with `pad` pixels around it. */
export function fitScale(
  canvas: { width: number; height: number },
  vw: number,
  vh: number,
  pad = 24,
): number {
  const s = Math.min((vw - pad * 2) / canvas.width, (vh - pad * 2) / canvas.height);
  return Math.max(0.05, Math.round(s * 1000) / 1000);
}

export const ZOOM_STEPS = [0.25, 0.33, 0.5, 0.67, 0.75, 0.9, 1, 1.25, 1.5, 2, 3, 4];
export function zoomIn(z: number): number {
  return ZOOM_STEPS.find((s) => s > z + 1e-6) ?? ZOOM_STEPS[ZOOM_STEPS.length - 1]!;
}
export function zoomOut(z: number): number {
  return [...ZOOM_STEPS].reverse().find((s) => s < z - 1e-6) ?? ZOOM_STEPS[0]!;
}

// ---------------------------------------------------------------- history (undo/redo)

export interface History {
  past: SceneDoc[];
  present: SceneDoc;
  future: SceneDoc[];
  /** The document last saved; `dirty` compares against it. */
  saved: SceneDoc;
}

export const HISTORY_LIMIT = 200;

export function initHistory(doc: SceneDoc): History {
  return { past: [], present: doc, future: [], saved: doc };
}

/** Records an edit; an edit that changed nothing leaves the history alone. */
export function commit(h: History, next: SceneDoc): History {
  if (next === h.present) return h;
  const past = [...h.past, h.present];
  if (past.length > HISTORY_LIMIT) past.shift();
  return { ...h, past, present: next, future: [] };
}

/** Replaces the present without a new undo step (the moves of one drag after its first). */
export function replacePresent(h: History, next: SceneDoc): History {
  return next === h.present ? h : { ...h, present: next };
}

export function undo(h: History): History {
  const prev = h.past[h.past.length - 1];
  if (!prev) return h;
  return { ...h, past: h.past.slice(0, -1), present: prev, future: [h.present, ...h.future] };
}

export function redo(h: History): History {
  const [next, ...future] = h.future;
  if (!next) return h;
  return { ...h, past: [...h.past, h.present], present: next, future };
}

export function markSaved(h: History, doc: SceneDoc = h.present): History {
  return { ...h, saved: doc };
}

export function isDirty(h: History): boolean {
  return h.present !== h.saved && JSON.stringify(h.present) !== JSON.stringify(h.saved);
}

// ---------------------------------------------------------------- bindings

export function bindingOf(w: Widget): Binding | undefined {
  return 'binding' in w ? (w.binding as Binding) : undefined;
}

/** Slot names a model document uses (bindings and links). */
export function slotsUsed(doc: SceneDoc): string[] {
  const out = new Set<string>();
  for (const w of doc.widgets) {
    const b = bindingOf(w);
    if (b?.slot) out.add(b.slot);
    if (w.kind === 'link' && 'slot' in w.target && w.target.slot) out.add(w.target.slot);
  }
  return [...out];
}

/** A model's `{slot,key}` bindings turned into `{sn,key}` by the slot -> device map; unbound slots are listed. */
export function bindModel(
  doc: SceneDoc,
  devices: Readonly<Record<string, string | undefined>>,
): { doc: SceneDoc; missing: string[] } {
  const missing = new Set<string>();
  const widgets = doc.widgets.map((w) => {
    const b = bindingOf(w);
    if (b?.slot !== undefined) {
      const sn = devices[b.slot];
      if (!sn) missing.add(b.slot);
      return { ...w, binding: { sn: sn ?? '', key: b.key } } as Widget;
    }
    if (w.kind === 'link' && 'slot' in w.target) {
      const sn = devices[w.target.slot];
      if (!sn) missing.add(w.target.slot);
      return { ...w, target: { sn: sn ?? '' } } as Widget;
    }
    return w;
  });
  return { doc: { ...doc, widgets }, missing: [...missing] };
}

/** Value colour by thresholds (the highest `from` not above the value wins). */
export function thresholdColor(
  value: unknown,
  thresholds: readonly Threshold[] | undefined,
  fallback: string,
): string {
  if (typeof value !== 'number' || !thresholds?.length) return fallback;
  let color = fallback;
  for (const t of [...thresholds].sort((a, b) => a.from - b.from)) if (value >= t.from) color = t.color;
  return color;
}

/** A value older than about twice its cycle (at least cycle + 2 s) is stale; no cycle known: 60 s. */
export function isStale(
  ts: number | undefined,
  cycleSeconds: number | null | undefined,
  now: number,
): boolean {
  if (ts === undefined) return true;
  const cycle = cycleSeconds && cycleSeconds > 0 ? cycleSeconds : 60;
  return now - ts > Math.max(cycle * 2000, cycle * 1000 + 2000);
}

/** Whether a lamp lights for `value`. */
export function lampOn(value: unknown, op: string, operand: unknown): boolean {
  if (op === 'truthy' || operand === undefined)
    return !(value === 0 || value === false || value === '' || value == null);
  const a = typeof value === 'boolean' ? Number(value) : value;
  const b = typeof operand === 'boolean' ? Number(operand) : operand;
  switch (op) {
    case 'eq':
      return a == b;
    case 'ne':
      return a != b;
    case 'gt':
      return Number(a) > Number(b);
    case 'ge':
      return Number(a) >= Number(b);
    case 'lt':
      return Number(a) < Number(b);
    case 'le':
      return Number(a) <= Number(b);
    default:
      return false;
  }
}

export function formatValue(value: unknown, decimals?: number): string {
  if (value === undefined || value === null) return '--';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    return decimals !== undefined ? value.toFixed(decimals) : String(Math.round(value * 1000) / 1000);
  }
  if (typeof value === 'boolean') return value ? 'ON' : 'OFF';
  return String(value);
}

export function ratio(value: unknown, min = 0, max = 100): number {
  if (typeof value !== 'number' || max <= min) return 0;
  return clamp((value - min) / (max - min), 0, 1);
}
