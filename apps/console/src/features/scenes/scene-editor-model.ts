/**
 * The scene editor's document operations, pure: every edit takes a document and returns a new one (structural
 * sharing), so the undo stack is a list of documents and the React layer only draws.
 *
 * Coordinates are canvas pixels; a group's children are relative to the group's top-left corner.
 */

export const WIDGET_KINDS = [
  'value',
  'gauge',
  'lamp',
  'switch',
  'slider',
  'trend',
  'bar',
  'text',
  'image',
  'link',
  'group',
] as const;
export type WidgetKind = (typeof WIDGET_KINDS)[number];

/** Kinds the palette offers (a group is made from a selection, not dropped). */
export const PALETTE_KINDS: readonly WidgetKind[] = WIDGET_KINDS.filter((k) => k !== 'group');
export const CONTROL_KINDS: readonly WidgetKind[] = ['switch', 'slider'];
export const BOUND_KINDS: readonly WidgetKind[] = [
  'value',
  'gauge',
  'lamp',
  'switch',
  'slider',
  'trend',
  'bar',
];

/** A variable: `{sn,key}` in a scene, `{slot,key}` in a model. */
export interface Binding {
  sn?: string;
  slot?: string;
  key: string;
}

export interface Threshold {
  /** From this value upwards the colour applies. */
  value: number;
  color: string;
}

export interface WidgetProps {
  label?: string;
  text?: string;
  unit?: string;
  decimals?: number;
  min?: number;
  max?: number;
  step?: number;
  color?: string;
  fontSize?: number;
  thresholds?: Threshold[];
  /** Trend: minutes shown. */
  minutes?: number;
  /** Control: ask before writing. */
  confirm?: boolean;
  /** Switch: the values written for on and off. */
  onValue?: number | string | boolean;
  offValue?: number | string | boolean;
  /** Image widget source, link target. */
  src?: string;
  href?: string;
  /** Seconds after which a value counts as stale; default from the variable's cycle. */
  cycle?: number;
}

export interface Widget {
  id: string;
  kind: WidgetKind;
  x: number;
  y: number;
  w: number;
  h: number;
  binding?: Binding;
  props: WidgetProps;
  children?: Widget[];
}

export interface SceneCanvas {
  width: number;
  height: number;
  background?: string | null;
  grid: number;
}

export interface SceneDoc {
  version: 1;
  canvas: SceneCanvas;
  /** Drawing order: the last is on top. */
  widgets: Widget[];
  /** Model slots (model mode): name -> product key or data-template hint. */
  slots?: SceneSlot[];
}

export interface SceneSlot {
  name: string;
  product_key?: string | null;
  template_id?: number | null;
}

export const DEFAULT_SIZE: Record<WidgetKind, [number, number]> = {
  value: [140, 56],
  gauge: [140, 140],
  lamp: [48, 48],
  switch: [96, 44],
  slider: [200, 56],
  trend: [320, 160],
  bar: [60, 180],
  text: [160, 40],
  image: [160, 120],
  link: [140, 36],
  group: [0, 0],
};

export function emptyDoc(width = 1920, height = 1080): SceneDoc {
  return { version: 1, canvas: { width, height, background: null, grid: 10 }, widgets: [] };
}

let seq = 0;
/** A widget id unique within the document. */
export function newId(doc: SceneDoc): string {
  const used = new Set(allIds(doc.widgets));
  let id: string;
  do {
    seq += 1;
    id = `w${Date.now().toString(36)}${seq.toString(36)}`;
  } while (used.has(id));
  return id;
}

function allIds(ws: readonly Widget[]): string[] {
  return ws.flatMap((w) => [w.id, ...(w.children ? allIds(w.children) : [])]);
}

export function snap(v: number, grid: number): number {
  if (!grid || grid <= 1) return Math.round(v);
  return Math.round(v / grid) * grid;
}

export function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

export function createWidget(doc: SceneDoc, kind: WidgetKind, x: number, y: number): Widget {
  const [w, h] = DEFAULT_SIZE[kind];
  const g = doc.canvas.grid;
  const props: WidgetProps = {};
  if (kind === 'gauge' || kind === 'slider' || kind === 'bar') Object.assign(props, { min: 0, max: 100 });
  if (kind === 'trend') props.minutes = 10;
  if (kind === 'switch') Object.assign(props, { onValue: 1, offValue: 0, confirm: true });
  if (kind === 'slider') props.confirm = true;
  if (kind === 'text') props.text = 'Text';
  return {
    id: newId(doc),
    kind,
    x: clamp(snap(x - w / 2, g), 0, Math.max(0, doc.canvas.width - w)),
    y: clamp(snap(y - h / 2, g), 0, Math.max(0, doc.canvas.height - h)),
    w,
    h,
    props,
  };
}

export function addWidget(doc: SceneDoc, widget: Widget): SceneDoc {
  return { ...doc, widgets: [...doc.widgets, widget] };
}

function mapTop(doc: SceneDoc, ids: ReadonlySet<string>, fn: (w: Widget) => Widget): SceneDoc {
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

export function updateWidget(doc: SceneDoc, id: string, patch: Partial<Omit<Widget, 'id'>>): SceneDoc {
  return mapTop(doc, new Set([id]), (w) => ({ ...w, ...patch }));
}

export function updateProps(doc: SceneDoc, id: string, patch: Partial<WidgetProps>): SceneDoc {
  return mapTop(doc, new Set([id]), (w) => ({ ...w, props: { ...w.props, ...patch } }));
}

/** Moves by (dx, dy); with `snapTo`, the first widget's corner lands on the grid and the rest keep their offsets. */
export function moveWidgets(
  doc: SceneDoc,
  ids: readonly string[],
  dx: number,
  dy: number,
  snapTo = 0,
): SceneDoc {
  const set = new Set(ids);
  const first = doc.widgets.find((w) => set.has(w.id));
  if (!first) return doc;
  let ddx = dx;
  let ddy = dy;
  if (snapTo > 1) {
    ddx = snap(first.x + dx, snapTo) - first.x;
    ddy = snap(first.y + dy, snapTo) - first.y;
  }
  if (ddx === 0 && ddy === 0) return doc;
  return mapTop(doc, set, (w) => ({ ...w, x: w.x + ddx, y: w.y + ddy }));
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

export function resizeWidget(doc: SceneDoc, id: string, handle: Handle, dx: number, dy: number): SceneDoc {
  return mapTop(doc, new Set([id]), (w) => {
    const r = resizeRect(w, handle, dx, dy, doc.canvas.grid);
    if (!w.children || w.w === 0 || w.h === 0) return { ...w, ...r };
    // A group scales its children with it.
    const sx = r.w / w.w;
    const sy = r.h / w.h;
    const children = w.children.map((c) => ({
      ...c,
      x: Math.round(c.x * sx),
      y: Math.round(c.y * sy),
      w: Math.max(MIN_SIZE, Math.round(c.w * sx)),
      h: Math.max(MIN_SIZE, Math.round(c.h * sy)),
    }));
    return { ...w, ...r, children };
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

/** Aligns the selection to its own bounds (two or more widgets). */
export function align(doc: SceneDoc, ids: readonly string[], mode: AlignMode): SceneDoc {
  const set = new Set(ids);
  const sel = doc.widgets.filter((w) => set.has(w.id));
  if (sel.length < 2) return doc;
  const b = boundsOf(sel);
  return mapTop(doc, set, (w) => {
    switch (mode) {
      case 'left':
        return { ...w, x: b.x };
      case 'right':
        return { ...w, x: b.x + b.w - w.w };
      case 'center':
        return { ...w, x: Math.round(b.x + (b.w - w.w) / 2) };
      case 'top':
        return { ...w, y: b.y };
      case 'bottom':
        return { ...w, y: b.y + b.h - w.h };
      case 'middle':
        return { ...w, y: Math.round(b.y + (b.h - w.h) / 2) };
    }
  });
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
  const next = new Map<string, number>();
  let cursor = start;
  for (const w of sorted) {
    next.set(w.id, Math.round(cursor));
    cursor += size(w) + gap;
  }
  return mapTop(doc, set, (w) =>
    axis === 'h' ? { ...w, x: next.get(w.id)! } : { ...w, y: next.get(w.id)! },
  );
}

export function bringToFront(doc: SceneDoc, ids: readonly string[]): SceneDoc {
  const set = new Set(ids);
  const rest = doc.widgets.filter((w) => !set.has(w.id));
  const moved = doc.widgets.filter((w) => set.has(w.id));
  return moved.length ? { ...doc, widgets: [...rest, ...moved] } : doc;
}

export function sendToBack(doc: SceneDoc, ids: readonly string[]): SceneDoc {
  const set = new Set(ids);
  const rest = doc.widgets.filter((w) => !set.has(w.id));
  const moved = doc.widgets.filter((w) => set.has(w.id));
  return moved.length ? { ...doc, widgets: [...moved, ...rest] } : doc;
}

export function deleteWidgets(doc: SceneDoc, ids: readonly string[]): SceneDoc {
  const set = new Set(ids);
  const widgets = doc.widgets.filter((w) => !set.has(w.id));
  return widgets.length === doc.widgets.length ? doc : { ...doc, widgets };
}

/** Groups two or more widgets into one `group` widget at the position of the topmost member. */
export function groupWidgets(doc: SceneDoc, ids: readonly string[]): { doc: SceneDoc; id?: string } {
  const set = new Set(ids);
  const sel = doc.widgets.filter((w) => set.has(w.id));
  if (sel.length < 2) return { doc };
  const b = boundsOf(sel);
  const id = newId(doc);
  const group: Widget = {
    id,
    kind: 'group',
    ...b,
    props: {},
    children: sel.map((w) => ({ ...w, x: w.x - b.x, y: w.y - b.y })),
  };
  const lastIndex = Math.max(...sel.map((w) => doc.widgets.indexOf(w)));
  const widgets: Widget[] = [];
  doc.widgets.forEach((w, i) => {
    if (!set.has(w.id)) widgets.push(w);
    if (i === lastIndex) widgets.push(group);
  });
  return { doc: { ...doc, widgets }, id };
}

export function ungroupWidgets(doc: SceneDoc, ids: readonly string[]): { doc: SceneDoc; ids: string[] } {
  const set = new Set(ids);
  const out: string[] = [];
  const widgets = doc.widgets.flatMap((w) => {
    if (!set.has(w.id) || w.kind !== 'group' || !w.children) return [w];
    return w.children.map((c) => {
      out.push(c.id);
      return { ...c, x: c.x + w.x, y: c.y + w.y };
    });
  });
  return out.length ? { doc: { ...doc, widgets }, ids: out } : { doc, ids: [...ids] };
}

function reId(doc: SceneDoc, w: Widget, taken: Set<string>): Widget {
  let id = newId(doc);
  while (taken.has(id)) id = newId(doc);
  taken.add(id);
  return { ...w, id, children: w.children?.map((c) => reId(doc, c, taken)) };
}

/** The selection as clipboard text (the JSON of its widgets). */
export function copyWidgets(doc: SceneDoc, ids: readonly string[]): Widget[] {
  const set = new Set(ids);
  return structuredClone(doc.widgets.filter((w) => set.has(w.id)));
}

/** Pastes copies with fresh ids, offset by `offset` pixels; returns the new ids (the new selection). */
export function pasteWidgets(
  doc: SceneDoc,
  clip: readonly Widget[],
  offset = 20,
): { doc: SceneDoc; ids: string[] } {
  const taken = new Set(allIds(doc.widgets));
  const copies = clip.map((w) => {
    const c = reId(doc, structuredClone(w), taken);
    return { ...c, x: c.x + offset, y: c.y + offset };
  });
  return { doc: { ...doc, widgets: [...doc.widgets, ...copies] }, ids: copies.map((c) => c.id) };
}

/** Top-level widgets that intersect the rectangle (box selection). */
export function widgetsInRect(doc: SceneDoc, r: Rect): string[] {
  const r2 = { x: Math.min(r.x, r.x + r.w), y: Math.min(r.y, r.y + r.h), w: Math.abs(r.w), h: Math.abs(r.h) };
  return doc.widgets
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

/** Replaces the present without a new undo step (the moves of one drag). */
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

/** Every binding in the document, groups included. */
export function bindingsOf(doc: SceneDoc): Binding[] {
  const out: Binding[] = [];
  const walk = (ws: readonly Widget[]) => {
    for (const w of ws) {
      if (w.binding) out.push(w.binding);
      if (w.children) walk(w.children);
    }
  };
  walk(doc.widgets);
  return out;
}

export function slotsUsed(doc: SceneDoc): string[] {
  return [...new Set(bindingsOf(doc).flatMap((b) => (b.slot ? [b.slot] : [])))];
}

/** A model's `{slot,key}` bindings turned into `{sn,key}` by the slot -> device map; unbound slots are listed. */
export function bindModel(
  doc: SceneDoc,
  devices: Readonly<Record<string, string | undefined>>,
): { doc: SceneDoc; missing: string[] } {
  const missing = new Set<string>();
  const walk = (ws: readonly Widget[]): Widget[] =>
    ws.map((w) => {
      let binding = w.binding;
      if (binding?.slot !== undefined) {
        const sn = devices[binding.slot];
        if (sn) binding = { sn, key: binding.key };
        else missing.add(binding.slot);
      }
      return { ...w, binding, children: w.children ? walk(w.children) : undefined };
    });
  const { slots: _slots, ...rest } = doc;
  return { doc: { ...rest, widgets: walk(doc.widgets) }, missing: [...missing] };
}

/** Value colour by thresholds (ascending; the highest threshold not above the value wins). */
export function thresholdColor(
  value: unknown,
  thresholds: readonly Threshold[] | undefined,
  fallback: string,
): string {
  if (typeof value !== 'number' || !thresholds?.length) return fallback;
  let color = fallback;
  for (const t of [...thresholds].sort((a, b) => a.value - b.value)) if (value >= t.value) color = t.color;
  return color;
}

/** A value older than its cycle (plus a grace of half a cycle, at least 2 s) is stale. */
export function isStale(ts: number | undefined, cycleSeconds: number | undefined, now: number): boolean {
  if (ts === undefined) return true;
  const cycle = cycleSeconds && cycleSeconds > 0 ? cycleSeconds : 60;
  return now - ts > cycle * 1000 + Math.max(2000, cycle * 500);
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
