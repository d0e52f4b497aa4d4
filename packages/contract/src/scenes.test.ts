import { describe, expect, it } from 'vitest';
import { parseSceneFile, sceneBindings, sceneDocument, sceneDeviceSns, SCENE_WIDGETS_MAX } from './scenes';

const model = () => ({
  format: 'cellhub.scene',
  version: 1,
  kind: 'model',
  name: 'Pump room',
  slots: [{ name: 'pump1', product_key: 'pump-01' }],
  canvas: { width: 800, height: 600 },
  widgets: [
    { id: 'a', kind: 'value', x: 1, y: 2, w: 10, h: 10, binding: { slot: 'pump1', key: 'temp' } },
    {
      id: 'b',
      kind: 'switch',
      x: 1,
      y: 2,
      w: 10,
      h: 10,
      binding: { slot: 'pump1', key: 'on' },
      write: { mode: 'modbus', tag: 'on' },
    },
    { id: 'g', kind: 'group', x: 0, y: 0, w: 5, h: 5, children: ['a'] },
  ] as unknown[],
});

describe('scene files', () => {
  it('a valid model file parses with defaults filled in', () => {
    const r = parseSceneFile(model(), 'model');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.file.widgets[0]).toMatchObject({ z: 0, style: {}, decimals: 1, thresholds: [] });
    expect(r.file.canvas.grid).toBe(10);
  });

  it('per-field problems: unknown slot, unknown group child, duplicate id, bad colour', () => {
    const f = model();
    f.widgets[1] = { ...(f.widgets[1] as object), binding: { slot: 'pump2', key: 'on' } };
    f.widgets[2] = { id: 'g', kind: 'group', x: 0, y: 0, w: 5, h: 5, children: ['zz'] };
    f.widgets.push({ id: 'a', kind: 'text', x: 0, y: 0, w: 5, h: 5, text: 'x', style: { color: 'red' } });
    const r = parseSceneFile(f, 'model');
    expect(r).toMatchObject({ ok: false, code: 83001 });
    if (r.ok) return;
    const fields = r.details.map((d) => d.field);
    expect(fields).toContain('widgets.3.style.color');
    // The object-level checks run once the shapes are right; fix the colour and they show.
    (f.widgets[3] as { style: object }).style = {};
    const r2 = parseSceneFile(f, 'model');
    expect(r2.ok).toBe(false);
    if (r2.ok) return;
    expect(r2.details.map((d) => [d.field, d.message])).toEqual(
      expect.arrayContaining([
        ['widgets.1.binding.slot', 'unknown_slot'],
        ['widgets.2.children.0', 'unknown_child'],
        ['widgets.3.id', 'duplicate_id'],
      ]),
    );
  });

  it('format, version, kind and the widget limit have their own answers', () => {
    expect(parseSceneFile('x', 'model')).toMatchObject({ ok: false, code: 83001 });
    expect(parseSceneFile({ ...model(), format: 'other' }, 'model')).toMatchObject({
      ok: false,
      code: 83001,
    });
    expect(parseSceneFile({ ...model(), version: 2 }, 'model')).toMatchObject({ ok: false, code: 83002 });
    expect(parseSceneFile(model(), 'scene')).toMatchObject({
      ok: false,
      code: 83001,
      details: [{ field: 'kind' }],
    });
    const many = Array.from({ length: SCENE_WIDGETS_MAX + 1 }, (_, i) => ({
      id: `t${i}`,
      kind: 'text',
      x: 0,
      y: 0,
      w: 1,
      h: 1,
      text: '',
    }));
    expect(parseSceneFile({ ...model(), widgets: many }, 'model')).toMatchObject({ ok: false, code: 83006 });
  });

  it('group cycles are refused', () => {
    const doc = {
      format: 'cellhub.scene',
      version: 1,
      canvas: { width: 200, height: 200 },
      widgets: [
        { id: 'g1', kind: 'group', x: 0, y: 0, w: 5, h: 5, children: ['g2'] },
        { id: 'g2', kind: 'group', x: 0, y: 0, w: 5, h: 5, children: ['g1'] },
      ],
    };
    const r = sceneDocument.safeParse(doc);
    expect(r.success).toBe(false);
    expect(r.error?.issues.some((i) => i.message === 'group_cycle')).toBe(true);
  });

  it('bindings and devices of a scene document', () => {
    const doc = sceneDocument.parse({
      format: 'cellhub.scene',
      version: 1,
      canvas: { width: 200, height: 200 },
      widgets: [
        { id: 'a', kind: 'value', x: 0, y: 0, w: 5, h: 5, binding: { sn: 'S1', key: 'temp' } },
        { id: 'b', kind: 'trend', x: 0, y: 0, w: 5, h: 5, binding: { sn: 'S1', key: 'temp' } },
        { id: 'c', kind: 'link', x: 0, y: 0, w: 5, h: 5, target: { sn: 'S2' } },
      ],
    });
    expect(sceneBindings(doc)).toEqual([{ sn: 'S1', key: 'temp' }]);
    expect(sceneDeviceSns(doc)).toEqual(['S1', 'S2']);
  });
});
