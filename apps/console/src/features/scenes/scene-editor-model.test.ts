import { describe, expect, it } from 'vitest';
import {
  addWidget,
  align,
  bindModel,
  bindingOf,
  drawOrder,
  findWidget,
  lampOn,
  resizeWidget,
  rootOf,
  slotsUsed,
  bringToFront,
  commit,
  copyWidgets,
  createWidget,
  deleteWidgets,
  distribute,
  emptyDoc,
  fitScale,
  groupWidgets,
  initHistory,
  isDirty,
  isStale,
  markSaved,
  moveWidgets,
  pasteWidgets,
  redo,
  replacePresent,
  resizeRect,
  sendToBack,
  snap,
  thresholdColor,
  undo,
  ungroupWidgets,
  widgetsInRect,
  type SceneDoc,
  type Widget,
} from './scene-editor-model';
import { SceneLiveStore, trendPolyline } from './scene-live-store';

function w(
  id: string,
  x: number,
  y: number,
  width = 20,
  height = 10,
  extra: Record<string, unknown> = {},
): Widget {
  return {
    id,
    kind: 'value',
    x,
    y,
    w: width,
    h: height,
    z: 0,
    style: {},
    binding: { sn: 'S', key: 'k' },
    unit: '',
    decimals: 1,
    thresholds: [],
    ...extra,
  } as Widget;
}
function doc(...widgets: Widget[]): SceneDoc {
  return { ...emptyDoc(1000, 800), widgets };
}

describe('snap and geometry', () => {
  it('snaps to the grid and rounds without one', () => {
    expect(snap(14, 10)).toBe(10);
    expect(snap(15, 10)).toBe(20);
    expect(snap(-4, 10)).toBe(-0);
    expect(snap(3.6, 0)).toBe(4);
  });

  it('drops a new widget centred on the pointer, on the grid, inside the canvas', () => {
    const d = emptyDoc(1000, 800);
    const v = createWidget(d, 'value', 203, 97, 'scene');
    expect(v).toMatchObject({ x: 130, y: 70, w: 140, h: 56 });
    const edge = createWidget(d, 'lamp', 5, 5, 'scene');
    expect(edge).toMatchObject({ x: 0, y: 0 });
    const far = createWidget(d, 'lamp', 2000, 2000, 'model');
    expect(far.x + far.w).toBeLessThanOrEqual(1000);
  });

  it('moves with the first widget snapped and the others keeping their offsets', () => {
    const d = moveWidgets(doc(w('a', 10, 10), w('b', 33, 47)), ['a', 'b'], 14, 6, 10);
    expect(d.widgets.map((x) => [x.x, x.y])).toEqual([
      [20, 20],
      [43, 57],
    ]);
  });

  it('resizes from each handle, snapped, never below the minimum', () => {
    const r = { x: 100, y: 100, w: 100, h: 50 };
    expect(resizeRect(r, 'se', 23, 12, 10)).toEqual({ x: 100, y: 100, w: 120, h: 60 });
    expect(resizeRect(r, 'nw', 17, -12, 10)).toEqual({ x: 120, y: 90, w: 80, h: 60 });
    expect(resizeRect(r, 'w', 500, 0, 10)).toEqual({ x: 190, y: 100, w: 10, h: 50 });
    expect(resizeRect(r, 'n', 0, 999, 0)).toEqual({ x: 100, y: 140, w: 100, h: 10 });
  });

  it('aligns to the selection bounds', () => {
    const d = doc(w('a', 10, 10, 20), w('b', 50, 40, 40), w('c', 0, 0));
    expect(align(d, ['a', 'b'], 'left').widgets.map((x) => x.x)).toEqual([10, 10, 0]);
    expect(align(d, ['a', 'b'], 'right').widgets.map((x) => x.x)).toEqual([70, 50, 0]);
    expect(align(d, ['a', 'b'], 'center').widgets.map((x) => x.x)).toEqual([40, 30, 0]);
    expect(align(d, ['a', 'b'], 'top').widgets.map((x) => x.y)).toEqual([10, 10, 0]);
    expect(align(d, ['a', 'b'], 'bottom').widgets.map((x) => x.y)).toEqual([40, 40, 0]);
    expect(align(d, ['a', 'b'], 'middle').widgets.map((x) => x.y)).toEqual([25, 25, 0]);
    expect(align(d, ['a'], 'left')).toBe(d);
  });

  it('distributes with equal gaps, the outer widgets fixed', () => {
    const d = doc(w('a', 0, 0, 10), w('b', 15, 0, 20), w('c', 90, 0, 10));
    const out = distribute(d, ['c', 'a', 'b'], 'h');
    expect(out.widgets.map((x) => x.x)).toEqual([0, 40, 90]);
    expect(distribute(d, ['a', 'b'], 'h')).toBe(d);
  });

  it('box-selects intersecting widgets in either drag direction', () => {
    const d = doc(w('a', 10, 10), w('b', 100, 100), w('c', 300, 300));
    expect(widgetsInRect(d, { x: 0, y: 0, w: 110, h: 110 })).toEqual(['a', 'b']);
    expect(widgetsInRect(d, { x: 110, y: 110, w: -110, h: -110 })).toEqual(['a', 'b']);
  });

  it('fits a canvas into 1280 and 4K viewports', () => {
    expect(fitScale({ width: 1920, height: 1080 }, 1280, 720, 0)).toBeCloseTo(0.667, 3);
    expect(fitScale({ width: 1920, height: 1080 }, 3840, 2160, 0)).toBe(2);
  });
});

describe('layers, groups and clipboard', () => {
  it('brings to front and sends to back keeping relative order', () => {
    const d = doc(w('a', 0, 0), w('b', 0, 0), w('c', 0, 0));
    const front = bringToFront(d, ['a', 'b']);
    expect(drawOrder(front).map((x) => x.id)).toEqual(['c', 'a', 'b']);
    expect(front.widgets.map((x) => x.z)).toEqual([0, 1, 2]);
    expect(drawOrder(sendToBack(d, ['c'])).map((x) => x.id)).toEqual(['c', 'a', 'b']);
  });

  it('groups by id, moves children with the group, and ungroups to the children', () => {
    const d = doc(w('a', 10, 20), w('b', 50, 60), w('c', 0, 0));
    const g = groupWidgets(d, ['a', 'b']);
    expect(g.doc.widgets).toHaveLength(4);
    const group = g.doc.widgets.find((x) => x.id === g.id)!;
    expect(group).toMatchObject({ kind: 'group', x: 10, y: 20, w: 60, h: 50, children: ['a', 'b'] });
    expect(rootOf(g.doc, 'a')).toBe(g.id);
    expect(widgetsInRect(g.doc, { x: 0, y: 0, w: 100, h: 100 })).toEqual(['c', g.id]);
    const moved = moveWidgets(g.doc, [g.id!], 5, 5);
    const u = ungroupWidgets(moved, [g.id!]);
    expect(u.ids).toEqual(['a', 'b']);
    expect(u.doc.widgets.map((x) => [x.id, x.x, x.y])).toEqual([
      ['a', 15, 25],
      ['b', 55, 65],
      ['c', 0, 0],
    ]);
    // Deleting a group deletes its children; aligning moves a group whole.
    expect(deleteWidgets(g.doc, [g.id!]).widgets.map((x) => x.id)).toEqual(['c']);
    const aligned = align(g.doc, [g.id!, 'c'], 'left');
    expect(aligned.widgets.map((x) => x.x)).toEqual([0, 40, 0, 0]);
  });

  it('resizes a group by scaling its children', () => {
    const g = groupWidgets(doc(w('a', 0, 0, 10, 10), w('b', 10, 10, 10, 10)), ['a', 'b']);
    const out = resizeWidget(g.doc, g.doc, g.id!, 'se', 20, 20);
    expect(out.widgets.map((x) => [x.x, x.y, x.w, x.h])).toEqual([
      [0, 0, 20, 20],
      [20, 20, 20, 20],
      [0, 0, 40, 40],
    ]);
  });

  it('pastes copies with fresh ids, offset', () => {
    const d = doc(w('a', 10, 10, 20, 10, { binding: { sn: 'S1', key: 't' } }));
    const clip = copyWidgets(d, ['a']);
    const p = pasteWidgets(d, clip);
    expect(p.doc.widgets).toHaveLength(2);
    expect(p.ids[0]).not.toBe('a');
    expect(p.doc.widgets[1]).toMatchObject({ x: 30, y: 30, binding: { sn: 'S1', key: 't' } });
    // The clipboard is a deep copy, and a pasted group points at its pasted children.
    expect(bindingOf(p.doc.widgets[1]!)).not.toBe(bindingOf(d.widgets[0]!));
    const g = groupWidgets(doc(w('a', 0, 0), w('b', 0, 0)), ['a', 'b']);
    const p2 = pasteWidgets(g.doc, copyWidgets(g.doc, [g.id!]));
    expect(p2.ids).toHaveLength(1);
    const pg = findWidget(p2.doc, p2.ids[0]!)!;
    expect(pg.kind === 'group' && pg.children.every((c) => !['a', 'b'].includes(c))).toBe(true);
    expect(p2.doc.widgets).toHaveLength(6);
  });
});

describe('history', () => {
  it('undoes and redoes edits, and a new edit clears the redo list', () => {
    let h = initHistory(doc());
    const a = addWidget(h.present, w('a', 0, 0));
    h = commit(h, a);
    const b = addWidget(h.present, w('b', 0, 0));
    h = commit(h, b);
    expect(isDirty(h)).toBe(true);
    h = undo(h);
    expect(h.present).toBe(a);
    h = undo(h);
    expect(h.present.widgets).toHaveLength(0);
    expect(isDirty(h)).toBe(false);
    h = undo(h);
    expect(h.present.widgets).toHaveLength(0);
    h = redo(h);
    expect(h.present).toBe(a);
    h = commit(h, deleteWidgets(h.present, ['a']));
    expect(h.future).toHaveLength(0);
    expect(redo(h)).toBe(h);
  });

  it('a drag is one step; unchanged edits add none; saving clears dirty', () => {
    let h = initHistory(doc(w('a', 0, 0)));
    const start = h.present;
    h = commit(h, moveWidgets(h.present, ['a'], 1, 0));
    for (let i = 0; i < 5; i++) h = replacePresent(h, moveWidgets(h.present, ['a'], 1, 0));
    expect(h.past).toEqual([start]);
    expect(commit(h, h.present)).toBe(h);
    h = markSaved(h);
    expect(isDirty(h)).toBe(false);
    h = undo(h);
    expect(isDirty(h)).toBe(true);
  });
});

describe('bindings, thresholds and staleness', () => {
  it('binds a model to devices slot by slot, links included, and lists unbound slots', () => {
    const model: SceneDoc = doc(
      w('a', 0, 0, 10, 10, { binding: { slot: 'pump', key: 'flow' } }),
      w('b', 0, 0, 10, 10, { binding: { slot: 'tank', key: 'level' } }),
      w('l', 0, 0, 10, 10, { kind: 'link', target: { slot: 'tank' }, label: '' }),
      w('c', 0, 0, 10, 10, { binding: { slot: 'spare', key: 'x' } }),
    );
    expect(slotsUsed(model).sort()).toEqual(['pump', 'spare', 'tank']);
    const out = bindModel(model, { pump: 'SN1', tank: 'SN2' });
    expect(bindingOf(out.doc.widgets[0]!)).toEqual({ sn: 'SN1', key: 'flow' });
    expect(bindingOf(out.doc.widgets[1]!)).toEqual({ sn: 'SN2', key: 'level' });
    expect(out.doc.widgets[2]).toMatchObject({ target: { sn: 'SN2' } });
    expect(out.missing).toEqual(['spare']);
  });

  it('lights lamps by their condition', () => {
    expect(lampOn(1, 'truthy', undefined)).toBe(true);
    expect(lampOn(false, 'truthy', undefined)).toBe(false);
    expect(lampOn(5, 'gt', 4)).toBe(true);
    expect(lampOn(true, 'eq', 1)).toBe(true);
    expect(lampOn('a', 'ne', 'a')).toBe(false);
  });

  it('colours by the highest threshold reached', () => {
    const th = [
      { from: 80, color: 'red' },
      { from: 50, color: 'orange' },
    ];
    expect(thresholdColor(10, th, 'green')).toBe('green');
    expect(thresholdColor(60, th, 'green')).toBe('orange');
    expect(thresholdColor(80, th, 'green')).toBe('red');
    expect(thresholdColor('x', th, 'green')).toBe('green');
  });

  it('greys a value once its cycle and grace have passed', () => {
    expect(isStale(undefined, 5, 0)).toBe(true);
    expect(isStale(0, 5, 10_000)).toBe(false);
    expect(isStale(0, 5, 10_001)).toBe(true);
    expect(isStale(0, 1, 3001)).toBe(true);
    expect(isStale(0, null, 120_000)).toBe(false);
  });
});

describe('live store', () => {
  it('wakes only the listeners of changed bindings', () => {
    const s = new SceneLiveStore();
    const calls: string[] = [];
    s.subscribe('S1', 't', () => calls.push('S1.t'));
    s.subscribe('S1', 'h', () => calls.push('S1.h'));
    s.subscribe('S2', 't', () => calls.push('S2.t'));
    s.setValues('S1', { t: 21.5 }, 1000);
    expect(calls).toEqual(['S1.t']);
    expect(s.get('S1', 't')).toEqual({ value: 21.5, ts: 1000 });
    // An older value does not replace a newer one.
    s.setValues('S1', { t: 1 }, 500);
    expect(s.get('S1', 't')!.value).toBe(21.5);
  });

  it('wakes listeners once per batch when given a scheduler', () => {
    const flushes: (() => void)[] = [];
    const s = new SceneLiveStore({ schedule: (f) => flushes.push(f) });
    const calls: string[] = [];
    s.subscribe('S1', 't', () => calls.push('S1.t'));
    s.subscribe('S2', 't', () => calls.push('S2.t'));
    s.subscribeDevice('S2', () => calls.push('S2 online'));
    s.setValues('S1', { t: 1 }, 1000);
    s.setValues('S1', { t: 2 }, 2000);
    s.setValues('S2', { t: 3 }, 2000);
    s.setOnline('S2', true);
    // Stored at once, woken later, each listener once, one scheduled flush.
    expect(s.get('S1', 't')!.value).toBe(2);
    expect(calls).toEqual([]);
    expect(flushes).toHaveLength(1);
    flushes[0]!();
    expect(calls).toEqual(['S1.t', 'S2.t', 'S2 online']);
    s.setValues('S1', { t: 4 }, 3000);
    expect(flushes).toHaveLength(2);
  });

  it('keeps trend points for tracked bindings and draws the window', () => {
    const s = new SceneLiveStore();
    s.trackSeries('S1', 't', [{ t: 0, v: 0 }]);
    s.setValues('S1', { t: 10 }, 60_000);
    expect(s.points('S1', 't')).toHaveLength(2);
    expect(trendPolyline(s.points('S1', 't'), 1, 60_000, 100, 50)).toBe('0.0,50.0 100.0,0.0');
    expect(trendPolyline([], 1, 0, 100, 50)).toBe('');
  });
});
