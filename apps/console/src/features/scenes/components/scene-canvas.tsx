import { memo, useCallback, useMemo, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import {
  HANDLES,
  drawOrder,
  findWidget,
  rootOf,
  parentsOf,
  widgetsInRect,
  type Handle,
  type Rect,
  type SceneDoc,
  type Widget,
  type WidgetKind,
} from '../scene-editor-model';
import { WidgetView, type WidgetViewProps } from './widget-view';

export const DRAG_TYPE = 'application/x-cellhub-widget';

export type CanvasGesture =
  | { type: 'move'; ids: string[]; dx: number; dy: number; first: boolean }
  | { type: 'resize'; id: string; handle: Handle; dx: number; dy: number; first: boolean }
  | { type: 'end' };

export interface SceneCanvasProps {
  doc: SceneDoc;
  zoom: number;
  editing: boolean;
  selected?: readonly string[];
  onSelect?: (ids: string[]) => void;
  onGesture?: (g: CanvasGesture) => void;
  onDropKind?: (kind: WidgetKind, x: number, y: number) => void;
  backgroundUrl?: string;
  fileUrl?: (file: string) => string | undefined;
  onControl?: WidgetViewProps['onControl'];
  onLink?: WidgetViewProps['onLink'];
  labels: WidgetViewProps['labels'];
}

/** The scene as plain SVG; in edit mode, its own pointer handling: select, box-select, move, resize, drop. */
export function SceneCanvas(props: SceneCanvasProps) {
  const { doc, zoom, editing, selected = [] } = props;
  const svgRef = useRef<SVGSVGElement>(null);
  const [box, setBox] = useState<Rect | null>(null);
  const order = useMemo(() => drawOrder(doc), [doc]);
  const { width, height } = doc.canvas;

  const toCanvas = useCallback(
    (clientX: number, clientY: number) => {
      const r = svgRef.current?.getBoundingClientRect();
      // A synthetic event without coordinates lands in the middle.
      if (!Number.isFinite(clientX) || !Number.isFinite(clientY)) return { x: width / 2, y: height / 2 };
      return { x: (clientX - (r?.left ?? 0)) / zoom, y: (clientY - (r?.top ?? 0)) / zoom };
    },
    [zoom, width, height],
  );

  /** Tracks one pointer drag on the window until it ends. */
  const track = useCallback(
    (
      e: ReactPointerEvent,
      onMove: (dx: number, dy: number, first: boolean) => void,
      onEnd?: (dx: number, dy: number) => void,
    ) => {
      const sx = e.clientX;
      const sy = e.clientY;
      let first = true;
      let moved = false;
      const move = (ev: PointerEvent) => {
        const dx = (ev.clientX - sx) / zoom;
        const dy = (ev.clientY - sy) / zoom;
        if (!moved && Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
        moved = true;
        onMove(dx, dy, first);
        first = false;
      };
      const up = (ev: PointerEvent) => {
        window.removeEventListener('pointermove', move);
        window.removeEventListener('pointerup', up);
        onEnd?.((ev.clientX - sx) / zoom, (ev.clientY - sy) / zoom);
        if (moved) props.onGesture?.({ type: 'end' });
      };
      window.addEventListener('pointermove', move);
      window.addEventListener('pointerup', up);
    },
    [zoom, props],
  );

  const onWidgetDown = (e: ReactPointerEvent, id: string) => {
    if (!editing || (e.button ?? 0) > 0) return;
    e.stopPropagation();
    const root = rootOf(doc, id);
    let sel = [...selected];
    if (e.shiftKey) {
      sel = sel.includes(root) ? sel.filter((s) => s !== root) : [...sel, root];
      props.onSelect?.(sel);
      return;
    }
    if (!sel.includes(root)) {
      sel = [root];
      props.onSelect?.(sel);
    }
    track(e, (dx, dy, first) => props.onGesture?.({ type: 'move', ids: sel, dx, dy, first }));
  };

  const onBackgroundDown = (e: ReactPointerEvent) => {
    if (!editing || (e.button ?? 0) > 0) return;
    const start = toCanvas(e.clientX, e.clientY);
    const base = e.shiftKey ? [...selected] : [];
    if (!e.shiftKey) props.onSelect?.([]);
    track(
      e,
      (dx, dy) => setBox({ x: start.x, y: start.y, w: dx, h: dy }),
      (dx, dy) => {
        setBox(null);
        if (Math.abs(dx) < 2 && Math.abs(dy) < 2) return;
        const hit = widgetsInRect(doc, { x: start.x, y: start.y, w: dx, h: dy });
        props.onSelect?.([...new Set([...base, ...hit])]);
      },
    );
  };

  const onHandleDown = (e: ReactPointerEvent, id: string, handle: Handle) => {
    e.stopPropagation();
    track(e, (dx, dy, first) => props.onGesture?.({ type: 'resize', id, handle, dx, dy, first }));
  };

  const parents = useMemo(() => parentsOf(doc), [doc]);
  const single = selected.length === 1 ? findWidget(doc, selected[0]!) : undefined;

  return (
    <svg
      ref={svgRef}
      data-testid="scene-canvas"
      width={width * zoom}
      height={height * zoom}
      viewBox={`0 0 ${width} ${height}`}
      style={{
        display: 'block',
        background: doc.canvas.background_color ?? 'var(--color-bg-2, #fff)',
        touchAction: 'none',
        userSelect: 'none',
      }}
      onPointerDown={onBackgroundDown}
      onDragOver={
        editing
          ? (e) => {
              if (e.dataTransfer.types.includes(DRAG_TYPE)) e.preventDefault();
            }
          : undefined
      }
      onDrop={
        editing
          ? (e) => {
              const kind = e.dataTransfer.getData(DRAG_TYPE) as WidgetKind;
              if (!kind) return;
              e.preventDefault();
              const p = toCanvas(e.clientX, e.clientY);
              props.onDropKind?.(kind, p.x, p.y);
            }
          : undefined
      }
    >
      {props.backgroundUrl && (
        <image
          href={props.backgroundUrl}
          x={0}
          y={0}
          width={width}
          height={height}
          preserveAspectRatio="xMidYMid slice"
        />
      )}
      {editing && (doc.canvas.grid ?? 0) > 1 && (
        <Grid step={doc.canvas.grid!} width={width} height={height} />
      )}
      {order.map((w) => (
        <g
          key={w.id}
          onPointerDown={editing ? (e) => onWidgetDown(e, w.id) : undefined}
          style={editing ? { cursor: 'move' } : undefined}
        >
          <WidgetView
            widget={w}
            editing={editing}
            fileUrl={props.fileUrl}
            onControl={props.onControl}
            onLink={props.onLink}
            labels={props.labels}
          />
          {editing && w.kind !== 'group' && (
            // An invisible hit area, so thin widgets (lines of text) are easy to grab.
            <rect x={w.x} y={w.y} width={w.w} height={w.h} fill="transparent" />
          )}
        </g>
      ))}
      {editing &&
        selected.map((id) => {
          const w = findWidget(doc, id);
          if (!w || parents.has(id)) return null;
          return (
            <rect
              key={`sel-${id}`}
              data-selected={id}
              x={w.x - 1}
              y={w.y - 1}
              width={w.w + 2}
              height={w.h + 2}
              fill="none"
              stroke="#165dff"
              strokeWidth={1.5 / zoom}
              pointerEvents="none"
            />
          );
        })}
      {editing && single && <Handles widget={single} zoom={zoom} onDown={onHandleDown} />}
      {box && (
        <rect
          data-testid="scene-box"
          x={Math.min(box.x, box.x + box.w)}
          y={Math.min(box.y, box.y + box.h)}
          width={Math.abs(box.w)}
          height={Math.abs(box.h)}
          fill="rgba(22,93,255,0.08)"
          stroke="#165dff"
          strokeDasharray="4 2"
          pointerEvents="none"
        />
      )}
    </svg>
  );
}

const Grid = memo(function Grid({ step, width, height }: { step: number; width: number; height: number }) {
  const id = `scene-grid-${step}`;
  return (
    <>
      <defs>
        <pattern id={id} width={step} height={step} patternUnits="userSpaceOnUse">
          <path
            d={`M ${step} 0 L 0 0 0 ${step}`}
            fill="none"
            stroke="rgba(134,144,156,0.18)"
            strokeWidth={0.5}
          />
        </pattern>
      </defs>
      <rect width={width} height={height} fill={`url(#${id})`} pointerEvents="none" />
    </>
  );
});

function Handles({
  widget: w,
  zoom,
  onDown,
}: {
  widget: Widget;
  zoom: number;
  onDown: (e: ReactPointerEvent, id: string, h: Handle) => void;
}) {
  const size = 8 / zoom;
  const pos: Record<Handle, [number, number, string]> = {
    nw: [w.x, w.y, 'nwse-resize'],
    n: [w.x + w.w / 2, w.y, 'ns-resize'],
    ne: [w.x + w.w, w.y, 'nesw-resize'],
    e: [w.x + w.w, w.y + w.h / 2, 'ew-resize'],
    se: [w.x + w.w, w.y + w.h, 'nwse-resize'],
    s: [w.x + w.w / 2, w.y + w.h, 'ns-resize'],
    sw: [w.x, w.y + w.h, 'nesw-resize'],
    w: [w.x, w.y + w.h / 2, 'ew-resize'],
  };
  return (
    <>
      {HANDLES.map((h) => {
        const [x, y, cursor] = pos[h];
        return (
          <rect
            key={h}
            data-handle={h}
            x={x - size / 2}
            y={y - size / 2}
            width={size}
            height={size}
            fill="#fff"
            stroke="#165dff"
            strokeWidth={1 / zoom}
            style={{ cursor }}
            onPointerDown={(e) => onDown(e, w.id, h)}
          />
        );
      })}
    </>
  );
}
