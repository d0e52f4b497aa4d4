import {
  Button,
  ColorPicker,
  Divider,
  Input,
  InputNumber,
  Message,
  Select,
  Space,
  Tag,
  Tooltip,
  Typography,
  Upload,
} from '@arco-design/web-react';
import {
  IconAlignCenter,
  IconAlignLeft,
  IconAlignRight,
  IconCopy,
  IconDelete,
  IconExpand,
  IconPlus,
  IconRedo,
  IconSave,
  IconToBottom,
  IconToTop,
  IconUndo,
  IconUpload,
  IconZoomIn,
  IconZoomOut,
} from '@arco-design/web-react/icon';
import type { SceneSlotInput } from '@cellhub/contract/scenes';
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useReducer,
  useRef,
  useState,
  type KeyboardEvent,
} from 'react';
import {
  PALETTE_KINDS,
  addWidget,
  align,
  bringToFront,
  commit,
  copyWidgets,
  createWidget,
  deleteWidgets,
  distribute,
  findWidget,
  fitScale,
  groupWidgets,
  initHistory,
  isDirty,
  markSaved,
  moveWidgets,
  pasteWidgets,
  redo,
  replacePresent,
  resizeWidget,
  sendToBack,
  undo,
  ungroupWidgets,
  updateWidget,
  zoomIn,
  zoomOut,
  type AlignMode,
  type History,
  type SceneDoc,
  type Widget,
  type WidgetKind,
} from '../scene-editor-model';
import { useTemplateList } from '../../data-templates/api';
import { sceneImageFiles, useSceneImageUrls } from '../api';
import { PropertyPanel } from './property-panel';
import { DRAG_TYPE, SceneCanvas, type CanvasGesture } from './scene-canvas';
import styles from './scene-editor.module.css';

type T = (key: string, vars?: Record<string, string | number>) => string;

type Action =
  | { type: 'commit'; doc: SceneDoc }
  | { type: 'replace'; doc: SceneDoc }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'saved'; doc: SceneDoc }
  | { type: 'reset'; doc: SceneDoc };

function reducer(h: History, a: Action): History {
  switch (a.type) {
    case 'commit':
      return commit(h, a.doc);
    case 'replace':
      return replacePresent(h, a.doc);
    case 'undo':
      return undo(h);
    case 'redo':
      return redo(h);
    case 'saved':
      return markSaved(h, a.doc);
    case 'reset':
      return initHistory(a.doc);
  }
}

export interface SceneEditorProps {
  mode: 'scene' | 'model';
  doc: SceneDoc;
  slots?: SceneSlotInput[];
  deviceProducts?: Record<string, string>;
  backgroundUrl?: string;
  fileUrl?: (file: string) => string | undefined;
  /** A scene's id: its images are shown (fetched with the token) and `onUpload` stores new ones. */
  sceneId?: number;
  /** Stores an image of the scene and answers its file id (background, image widgets). */
  onUpload?: (file: File) => Promise<string>;
  onSave: (doc: SceneDoc, slots?: SceneSlotInput[]) => Promise<void>;
  /** Reports unsaved changes (the page guards leaving). */
  onDirty?: (dirty: boolean) => void;
  t: T;
}

/** The scene/model editor: palette, SVG canvas, property panel, toolbar; every edit goes through the history. */
export function SceneEditor({
  mode,
  doc,
  slots: slotsIn = [],
  deviceProducts = {},
  onSave,
  onDirty,
  t,
  ...rest
}: SceneEditorProps) {
  const [h, dispatch] = useReducer(reducer, doc, initHistory);
  const [selected, setSelected] = useState<string[]>([]);
  const [zoom, setZoom] = useState(1);
  const [slots, setSlots] = useState<SceneSlotInput[]>(slotsIn);
  const [slotsDirty, setSlotsDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const clip = useRef<Widget[]>([]);
  const gestureBase = useRef<SceneDoc | null>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  const present = h.present;
  const dirty = isDirty(h) || slotsDirty;
  const images = useSceneImageUrls(rest.fileUrl ? undefined : rest.sceneId, sceneImageFiles(present));
  const bg = present.canvas.background;
  const backgroundUrl = rest.backgroundUrl ?? (bg ? images[bg] : undefined);
  const fileUrl = rest.fileUrl ?? ((f: string) => images[f]);

  useEffect(() => onDirty?.(dirty), [dirty, onDirty]);

  const edit = useCallback((next: SceneDoc) => dispatch({ type: 'commit', doc: next }), []);

  const fit = useCallback(() => {
    const el = stageRef.current;
    if (!el || !el.clientWidth) return;
    setZoom(fitScale(present.canvas, el.clientWidth, el.clientHeight, 24));
  }, [present.canvas]);
  // Fit once on open (1280 px to a 4K wall).
  useLayoutEffect(() => {
    fit();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const onGesture = useCallback(
    (g: CanvasGesture) => {
      if (g.type === 'end') {
        gestureBase.current = null;
        return;
      }
      if (g.first || !gestureBase.current) gestureBase.current = present;
      const base = gestureBase.current;
      const next =
        g.type === 'move'
          ? moveWidgets(base, g.ids, g.dx, g.dy, base.canvas.grid ?? 0)
          : resizeWidget(base, base, g.id, g.handle, g.dx, g.dy);
      dispatch({ type: g.first ? 'commit' : 'replace', doc: next });
    },
    [present],
  );

  const onDropKind = useCallback(
    (kind: WidgetKind, x: number, y: number) => {
      const w = createWidget(present, kind, x, y, mode);
      edit(addWidget(present, w));
      setSelected([w.id]);
      stageRef.current?.focus();
    },
    [present, mode, edit],
  );

  const doAlign = (m: AlignMode) => edit(align(present, selected, m));
  const copy = () => {
    if (selected.length) clip.current = copyWidgets(present, selected);
  };
  const paste = () => {
    if (!clip.current.length) return;
    const r = pasteWidgets(present, clip.current);
    edit(r.doc);
    setSelected(r.ids);
    clip.current = copyWidgets(r.doc, r.ids);
  };
  const duplicate = () => {
    if (!selected.length) return;
    const r = pasteWidgets(present, copyWidgets(present, selected));
    edit(r.doc);
    setSelected(r.ids);
  };
  const remove = () => {
    edit(deleteWidgets(present, selected));
    setSelected([]);
  };
  const group = () => {
    const r = groupWidgets(present, selected);
    if (r.id) {
      edit(r.doc);
      setSelected([r.id]);
    }
  };
  const ungroup = () => {
    const r = ungroupWidgets(present, selected);
    edit(r.doc);
    setSelected(r.ids);
  };

  const save = async () => {
    setSaving(true);
    try {
      await onSave(present, mode === 'model' ? slots : undefined);
      dispatch({ type: 'saved', doc: present });
      setSlotsDirty(false);
      Message.success(t('scene.saved'));
    } catch {
      // The page shows the refusal.
    } finally {
      setSaving(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (target.closest('input,textarea,[contenteditable="true"],.arco-select')) return;
    const mod = e.ctrlKey || e.metaKey;
    const k = e.key.toLowerCase();
    let handled = true;
    if (mod && k === 'z' && !e.shiftKey) dispatch({ type: 'undo' });
    else if (mod && (k === 'y' || (k === 'z' && e.shiftKey))) dispatch({ type: 'redo' });
    else if (mod && k === 'c') copy();
    else if (mod && k === 'v') paste();
    else if (mod && k === 'd') duplicate();
    else if (mod && k === 's') void save();
    else if (mod && k === 'a')
      setSelected(
        present.widgets
          .map((w) => w.id)
          .filter((id) => !present.widgets.some((g) => g.kind === 'group' && g.children.includes(id))),
      );
    else if (mod && k === 'g') (e.shiftKey ? ungroup : group)();
    else if (k === 'delete' || k === 'backspace') remove();
    else if (k === 'escape') setSelected([]);
    else if (k.startsWith('arrow') && selected.length) {
      const step = e.shiftKey ? 10 : 1;
      const dx = k === 'arrowleft' ? -step : k === 'arrowright' ? step : 0;
      const dy = k === 'arrowup' ? -step : k === 'arrowdown' ? step : 0;
      edit(moveWidgets(present, selected, dx, dy));
    } else handled = false;
    if (handled) e.preventDefault();
  };

  const one = selected.length === 1 ? findWidget(present, selected[0]!) : undefined;
  const canGroup = selected.length >= 2;
  const canUngroup = selected.some((id) => findWidget(present, id)?.kind === 'group');

  return (
    <div>
      <div className={styles.toolbar} data-testid="scene-toolbar">
        <Space size={4}>
          <Tooltip content={`${t('scene.undo')} (Ctrl+Z)`}>
            <Button
              size="small"
              icon={<IconUndo />}
              disabled={!h.past.length}
              onClick={() => dispatch({ type: 'undo' })}
              aria-label={t('scene.undo')}
            />
          </Tooltip>
          <Tooltip content={`${t('scene.redo')} (Ctrl+Y)`}>
            <Button
              size="small"
              icon={<IconRedo />}
              disabled={!h.future.length}
              onClick={() => dispatch({ type: 'redo' })}
              aria-label={t('scene.redo')}
            />
          </Tooltip>
        </Space>
        <Divider type="vertical" />
        <Space size={4}>
          <Tooltip content={t('scene.align.left')}>
            <Button
              size="small"
              icon={<IconAlignLeft />}
              disabled={selected.length < 2}
              onClick={() => doAlign('left')}
              aria-label={t('scene.align.left')}
            />
          </Tooltip>
          <Tooltip content={t('scene.align.center')}>
            <Button
              size="small"
              icon={<IconAlignCenter />}
              disabled={selected.length < 2}
              onClick={() => doAlign('center')}
              aria-label={t('scene.align.center')}
            />
          </Tooltip>
          <Tooltip content={t('scene.align.right')}>
            <Button
              size="small"
              icon={<IconAlignRight />}
              disabled={selected.length < 2}
              onClick={() => doAlign('right')}
              aria-label={t('scene.align.right')}
            />
          </Tooltip>
          <Select
            size="small"
            style={{ width: 104 }}
            placeholder={t('scene.align.more')}
            disabled={selected.length < 2}
            value={undefined}
            options={[
              { value: 'top', label: t('scene.align.top') },
              { value: 'middle', label: t('scene.align.middle') },
              { value: 'bottom', label: t('scene.align.bottom') },
              { value: 'dh', label: t('scene.distribute.h'), disabled: selected.length < 3 },
              { value: 'dv', label: t('scene.distribute.v'), disabled: selected.length < 3 },
            ]}
            onChange={(v: string) =>
              v === 'dh' || v === 'dv'
                ? edit(distribute(present, selected, v === 'dh' ? 'h' : 'v'))
                : doAlign(v as AlignMode)
            }
          />
        </Space>
        <Divider type="vertical" />
        <Space size={4}>
          <Tooltip content={t('scene.front')}>
            <Button
              size="small"
              icon={<IconToTop />}
              disabled={!selected.length}
              onClick={() => edit(bringToFront(present, selected))}
              aria-label={t('scene.front')}
            />
          </Tooltip>
          <Tooltip content={t('scene.back.layer')}>
            <Button
              size="small"
              icon={<IconToBottom />}
              disabled={!selected.length}
              onClick={() => edit(sendToBack(present, selected))}
              aria-label={t('scene.back.layer')}
            />
          </Tooltip>
          <Button size="small" disabled={!canGroup} onClick={group}>
            {t('scene.group')}
          </Button>
          <Button size="small" disabled={!canUngroup} onClick={ungroup}>
            {t('scene.ungroup')}
          </Button>
          <Tooltip content={`${t('scene.duplicate')} (Ctrl+D)`}>
            <Button
              size="small"
              icon={<IconCopy />}
              disabled={!selected.length}
              onClick={duplicate}
              aria-label={t('scene.duplicate')}
            />
          </Tooltip>
          <Tooltip content={`${t('scene.delete')} (Delete)`}>
            <Button
              size="small"
              status="danger"
              icon={<IconDelete />}
              disabled={!selected.length}
              onClick={remove}
              aria-label={t('scene.delete')}
            />
          </Tooltip>
        </Space>
        <Divider type="vertical" />
        <Space size={4}>
          <Button
            size="small"
            icon={<IconZoomOut />}
            onClick={() => setZoom(zoomOut)}
            aria-label={t('scene.zoomOut')}
          />
          <Tag data-testid="scene-zoom">{Math.round(zoom * 100)}%</Tag>
          <Button
            size="small"
            icon={<IconZoomIn />}
            onClick={() => setZoom(zoomIn)}
            aria-label={t('scene.zoomIn')}
          />
          <Tooltip content={t('scene.fit')}>
            <Button size="small" icon={<IconExpand />} onClick={fit} aria-label={t('scene.fit')} />
          </Tooltip>
        </Space>
        <div style={{ flex: 1 }} />
        {dirty && (
          <Tag color="orange" data-testid="scene-dirty">
            {t('scene.unsaved')}
          </Tag>
        )}
        <Button
          type="primary"
          size="small"
          icon={<IconSave />}
          loading={saving}
          disabled={!dirty}
          onClick={() => void save()}
          data-testid="scene-save"
        >
          {t('scene.save')}
        </Button>
      </div>
      <div className={styles.layout}>
        <div className={styles.palette} data-testid="scene-palette">
          {PALETTE_KINDS.map((kind) => (
            <div
              key={kind}
              className={styles.paletteItem}
              draggable
              role="button"
              tabIndex={0}
              data-kind={kind}
              title={t('scene.palette.hint')}
              onDragStart={(e) => {
                e.dataTransfer.setData(DRAG_TYPE, kind);
                e.dataTransfer.effectAllowed = 'copy';
              }}
              onDoubleClick={() => onDropKind(kind, present.canvas.width / 2, present.canvas.height / 2)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') onDropKind(kind, present.canvas.width / 2, present.canvas.height / 2);
              }}
            >
              <IconPlus style={{ fontSize: 12 }} />
              {t(`scene.kind.${kind}`)}
            </div>
          ))}
        </div>
        <div
          ref={stageRef}
          className={styles.stage}
          tabIndex={0}
          onKeyDown={onKeyDown}
          data-testid="scene-stage"
        >
          <div className={styles.stageInner}>
            <SceneCanvas
              doc={present}
              zoom={zoom}
              editing
              selected={selected}
              onSelect={setSelected}
              onGesture={onGesture}
              onDropKind={onDropKind}
              backgroundUrl={backgroundUrl}
              fileUrl={fileUrl}
              labels={{ offline: t('scene.offline'), stale: t('scene.stale'), set: t('scene.set') }}
            />
          </div>
        </div>
        <div className={styles.side}>
          <PropertyPanel
            widget={one}
            count={selected.length}
            mode={mode}
            slots={slots}
            deviceProducts={deviceProducts}
            onChange={(patch) => one && edit(updateWidget(present, one.id, patch))}
            onUpload={rest.onUpload}
            t={t}
          />
          {!one && selected.length === 0 && (
            <CanvasPanel
              canvas={present.canvas}
              onChange={(patch) => edit({ ...present, canvas: { ...present.canvas, ...patch } })}
              onUpload={mode === 'scene' ? rest.onUpload : undefined}
              t={t}
            />
          )}
          {mode === 'model' && (
            <SlotsPanel
              slots={slots}
              onChange={(s) => {
                setSlots(s);
                setSlotsDirty(true);
              }}
              t={t}
            />
          )}
        </div>
      </div>
    </div>
  );
}

/** With nothing selected: the canvas — size, colour, grid and (scenes) the background image. */
function CanvasPanel({
  canvas,
  onChange,
  onUpload,
  t,
}: {
  canvas: SceneDoc['canvas'];
  onChange: (patch: Partial<SceneDoc['canvas']>) => void;
  onUpload?: (file: File) => Promise<string>;
  t: T;
}) {
  const [uploading, setUploading] = useState(false);
  return (
    <div className={styles.panel} data-testid="scene-canvas-panel">
      <Typography.Title heading={6} style={{ margin: '0 0 8px' }}>
        {t('scene.canvas')}
      </Typography.Title>
      <div className={styles.row}>
        <span className={styles.rowLabel}>{t('scene.prop.size')}</span>
        <div className={styles.rowField}>
          <Space size={4}>
            <InputNumber
              size="small"
              min={100}
              max={10000}
              value={canvas.width}
              onChange={(v) => typeof v === 'number' && onChange({ width: Math.round(v) })}
            />
            <InputNumber
              size="small"
              min={100}
              max={10000}
              value={canvas.height}
              onChange={(v) => typeof v === 'number' && onChange({ height: Math.round(v) })}
            />
          </Space>
        </div>
      </div>
      <div className={styles.row}>
        <span className={styles.rowLabel}>{t('scene.prop.background')}</span>
        <div className={styles.rowField}>
          <ColorPicker
            size="mini"
            value={canvas.background_color}
            onChange={(c) => onChange({ background_color: String(c) })}
          />
        </div>
      </div>
      <div className={styles.row}>
        <span className={styles.rowLabel}>{t('scene.canvas.grid')}</span>
        <div className={styles.rowField}>
          <InputNumber
            size="small"
            min={0}
            max={200}
            value={canvas.grid ?? 0}
            onChange={(v) => onChange({ grid: typeof v === 'number' ? Math.round(v) : 0 })}
          />
        </div>
      </div>
      {onUpload && (
        <div className={styles.row}>
          <span className={styles.rowLabel}>{t('scene.canvas.image')}</span>
          <div className={styles.rowField}>
            <Space size={4} wrap>
              <Upload
                accept="image/png,image/jpeg,image/gif,image/webp"
                showUploadList={false}
                autoUpload={false}
                onChange={(_, f) => {
                  if (!f.originFile) return;
                  setUploading(true);
                  void onUpload(f.originFile)
                    .then((file) => onChange({ background: file }))
                    .catch((e: unknown) =>
                      Message.error(e instanceof Error ? e.message : t('scene.saveFailed')),
                    )
                    .finally(() => setUploading(false));
                }}
              >
                <Button size="small" icon={<IconUpload />} loading={uploading} data-testid="scene-bg-upload">
                  {t('scene.canvas.upload')}
                </Button>
              </Upload>
              {canvas.background && (
                <Button size="small" status="danger" onClick={() => onChange({ background: null })}>
                  {t('scene.canvas.removeImage')}
                </Button>
              )}
            </Space>
          </div>
        </div>
      )}
    </div>
  );
}

function SlotsPanel({
  slots,
  onChange,
  t,
}: {
  slots: SceneSlotInput[];
  onChange: (s: SceneSlotInput[]) => void;
  t: T;
}) {
  const set = (i: number, patch: Partial<SceneSlotInput>) =>
    onChange(slots.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const templates = useTemplateList({ current: 1, per_page: 100 }).data?.data ?? [];
  return (
    <div className={styles.slots} data-testid="scene-slots">
      <div style={{ fontWeight: 500, marginBottom: 8 }}>{t('scene.slots')}</div>
      {slots.map((s, i) => (
        <Space key={i} direction="vertical" size={4} style={{ width: '100%', marginBottom: 8 }}>
          <Space size={4}>
            <Input
              size="small"
              style={{ width: 100 }}
              placeholder={t('scene.slot.name')}
              value={s.name}
              onChange={(v) => set(i, { name: v })}
            />
            <Input
              size="small"
              style={{ width: 100 }}
              placeholder={t('scene.slot.label')}
              value={s.label ?? ''}
              onChange={(v) => set(i, { label: v })}
            />
            <Button
              size="mini"
              type="text"
              status="danger"
              icon={<IconDelete />}
              onClick={() => onChange(slots.filter((_, j) => j !== i))}
              aria-label={t('scene.delete')}
            />
          </Space>
          <Space size={4}>
            <Select
              size="small"
              style={{ width: 96 }}
              value={s.template_id !== undefined ? 'template' : 'product'}
              onChange={(by: string) =>
                set(
                  i,
                  by === 'template'
                    ? { product_key: undefined, template_id: templates[0]?.id }
                    : { product_key: '', template_id: undefined },
                )
              }
              options={[
                { value: 'product', label: t('scene.slot.byProduct') },
                { value: 'template', label: t('scene.slot.byTemplate') },
              ]}
              data-testid={`slot-by-${i}`}
            />
            {s.template_id !== undefined ? (
              <Select
                size="small"
                style={{ width: 136 }}
                showSearch
                placeholder={t('scene.slot.template')}
                value={s.template_id ?? undefined}
                onChange={(v: number) => set(i, { template_id: v, product_key: undefined })}
                options={templates.map((x) => ({ value: x.id, label: x.name }))}
                data-testid={`slot-template-${i}`}
              />
            ) : (
              <Input
                size="small"
                style={{ width: 136 }}
                placeholder={t('scene.slot.product')}
                value={s.product_key ?? ''}
                onChange={(v) => set(i, { product_key: v || undefined, template_id: undefined })}
              />
            )}
          </Space>
        </Space>
      ))}
      <Button
        size="small"
        long
        type="dashed"
        icon={<IconPlus />}
        onClick={() => onChange([...slots, { name: `slot${slots.length + 1}`, label: '', product_key: '' }])}
      >
        {t('scene.slot.add')}
      </Button>
    </div>
  );
}
