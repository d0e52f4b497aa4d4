import { memo, type ReactElement } from 'react';
import { bindingOf, formatValue, lampOn, ratio, thresholdColor, type Widget } from '../scene-editor-model';
import { trendPolyline } from '../scene-live-store';
import { useLive, useLiveValue, useOnline, useStale, useTrend } from './live-context';

export const STALE_COLOR = '#a9aeb8';
const TEXT = 'var(--color-text-1, #1d2129)';
const TEXT2 = 'var(--color-text-3, #86909c)';

export interface WidgetViewProps {
  widget: Widget;
  /** Edit mode: no live values, a sample look. */
  editing: boolean;
  /** Image widgets and the background: the URL of an uploaded file. */
  fileUrl?: (file: string) => string | undefined;
  onControl?: (widget: Widget, value: number | boolean) => void;
  onLink?: (sn: string) => void;
  labels: { offline: string; stale: string; set: string };
}

/** One widget, drawn in canvas coordinates. Memoised: it re-renders when its widget or its own binding changes. */
export const WidgetView = memo(function WidgetView(props: WidgetViewProps) {
  const { widget: w } = props;
  const b = bindingOf(w);
  const live = useLive();
  const sn = props.editing ? undefined : b?.sn;
  const value = useLiveValue(sn, b?.key);
  const stale = useStale(sn, b?.key, value?.ts);
  const online = useOnline(sn);
  const s = w.style ?? {};
  const offline = online === false;
  const grey = !props.editing && !!b && (stale || offline);
  const v = props.editing ? undefined : value?.value;
  const canWrite = !props.editing && !!live && !!b?.sn && live.control(b.sn) && !offline;
  const transform = w.rotation ? `rotate(${w.rotation} ${w.x + w.w / 2} ${w.y + w.h / 2})` : undefined;
  return (
    <g
      data-widget={w.id}
      data-kind={w.kind}
      data-stale={grey ? 'true' : undefined}
      data-offline={offline ? 'true' : undefined}
      transform={transform}
      opacity={s.opacity}
    >
      <Body {...props} value={v} grey={grey} canWrite={canWrite} />
      {!props.editing && b && (offline || stale) && (
        <text
          x={w.x + w.w - 2}
          y={w.y + 10}
          textAnchor="end"
          fontSize={9}
          fill={offline ? '#f53f3f' : STALE_COLOR}
        >
          {offline ? props.labels.offline : props.labels.stale}
        </text>
      )}
    </g>
  );
});

function Body({
  widget: w,
  value,
  grey,
  canWrite,
  editing,
  onControl,
  onLink,
  fileUrl,
  labels,
}: WidgetViewProps & { value: unknown; grey: boolean; canWrite: boolean }) {
  const s = w.style ?? {};
  const fg = s.color ?? TEXT;
  const fontSize = s.font_size ?? 14;
  const bg = s.background;
  const frame = (
    <rect
      x={w.x}
      y={w.y}
      width={w.w}
      height={w.h}
      rx={s.radius ?? 4}
      fill={bg ?? 'transparent'}
      stroke={s.border_color ?? (editing ? 'rgba(134,144,156,0.35)' : 'none')}
      strokeWidth={s.border_width ?? 1}
      strokeDasharray={editing && !s.border_color ? '3 3' : undefined}
    />
  );
  const title = w.name ? (
    <text x={w.x + 6} y={w.y + 13} fontSize={11} fill={TEXT2}>
      {w.name}
    </text>
  ) : null;
  const anchor = s.align === 'left' ? 'start' : s.align === 'right' ? 'end' : 'middle';
  const ax = s.align === 'left' ? w.x + 6 : s.align === 'right' ? w.x + w.w - 6 : w.x + w.w / 2;
  switch (w.kind) {
    case 'value': {
      const color = grey ? STALE_COLOR : thresholdColor(value, w.thresholds, fg);
      return (
        <>
          {frame}
          {title}
          <text
            x={ax}
            y={w.y + w.h / 2 + (w.name ? 8 : 0)}
            dominantBaseline="middle"
            textAnchor={anchor}
            fontSize={fontSize + 6}
            fontWeight={s.font_weight ?? 'bold'}
            fill={color}
            data-role="value"
          >
            {editing ? '0.0' : formatValue(value, w.decimals)}
            {w.unit ? (
              <tspan fontSize={fontSize - 2} fill={grey ? STALE_COLOR : TEXT2}>{` ${w.unit}`}</tspan>
            ) : null}
          </text>
        </>
      );
    }
    case 'gauge': {
      const r = Math.max(4, Math.min(w.w, w.h) / 2 - 8);
      const cx = w.x + w.w / 2;
      const cy = w.y + w.h / 2 + r * 0.2;
      const p = editing ? 0.6 : ratio(value, w.min, w.max);
      const arc = (t: number) => {
        const a = Math.PI * (0.75 + 1.5 * t);
        return [cx + r * Math.cos(a), cy + r * Math.sin(a)];
      };
      const [sx, sy] = arc(0);
      const [ex, ey] = arc(1);
      const [vx, vy] = arc(p);
      const color = grey ? STALE_COLOR : thresholdColor(value, w.thresholds, s.color ?? '#165dff');
      return (
        <>
          {frame}
          <path
            d={`M${sx},${sy} A${r},${r} 0 1 1 ${ex},${ey}`}
            fill="none"
            stroke="var(--color-fill-3, #e5e6eb)"
            strokeWidth={8}
            strokeLinecap="round"
          />
          {p > 0 && (
            <path
              d={`M${sx},${sy} A${r},${r} 0 ${p > 2 / 3 ? 1 : 0} 1 ${vx},${vy}`}
              fill="none"
              stroke={color}
              strokeWidth={8}
              strokeLinecap="round"
              data-role="arc"
            />
          )}
          <text
            x={cx}
            y={cy}
            textAnchor="middle"
            dominantBaseline="middle"
            fontSize={fontSize + 2}
            fill={grey ? STALE_COLOR : TEXT}
            data-role="value"
          >
            {editing ? '60' : formatValue(value, w.decimals)}
            {w.unit ? <tspan fontSize={fontSize - 3}>{` ${w.unit}`}</tspan> : null}
          </text>
          {w.name && (
            <text x={cx} y={w.y + w.h - 6} textAnchor="middle" fontSize={11} fill={TEXT2}>
              {w.name}
            </text>
          )}
        </>
      );
    }
    case 'lamp': {
      const on = editing ? true : lampOn(value, w.condition?.op ?? 'truthy', w.condition?.operand);
      const r = Math.max(3, Math.min(w.w, w.h) / 2 - 2);
      return (
        <circle
          cx={w.x + w.w / 2}
          cy={w.y + w.h / 2}
          r={r}
          fill={grey ? STALE_COLOR : on ? w.on_color : w.off_color}
          stroke="rgba(0,0,0,0.15)"
          data-role="lamp"
          data-on={on ? 'true' : 'false'}
        />
      );
    }
    case 'switch': {
      const on = !editing && value !== undefined && value === w.on_value;
      const knob = Math.max(4, w.h / 2 - 4);
      const cx = on ? w.x + w.w - knob - 4 : w.x + knob + 4;
      return (
        <g
          role="switch"
          aria-checked={on}
          aria-disabled={!canWrite}
          data-role="switch"
          style={{ cursor: canWrite ? 'pointer' : editing ? undefined : 'not-allowed' }}
          onClick={canWrite ? () => onControl?.(w, on ? w.off_value : w.on_value) : undefined}
        >
          <rect
            x={w.x}
            y={w.y}
            width={w.w}
            height={w.h}
            rx={w.h / 2}
            fill={grey ? STALE_COLOR : on ? (s.color ?? '#00b42a') : '#c9cdd4'}
            opacity={!editing && !canWrite ? 0.5 : 1}
          />
          <circle cx={cx} cy={w.y + w.h / 2} r={knob} fill="#fff" />
        </g>
      );
    }
    case 'setpoint': {
      const p = editing ? 0.5 : ratio(value, w.min, w.max);
      const y = w.y + w.h - 14;
      return (
        <g
          data-role="setpoint"
          aria-disabled={!canWrite}
          style={{ cursor: canWrite ? 'pointer' : editing ? undefined : 'not-allowed' }}
          onClick={canWrite ? () => onControl?.(w, typeof value === 'number' ? value : w.min) : undefined}
        >
          {frame}
          <text x={w.x + 6} y={w.y + 16} fontSize={12} fill={TEXT2}>
            {w.name || labels.set}
          </text>
          <text
            x={w.x + w.w - 6}
            y={w.y + 16}
            textAnchor="end"
            fontSize={fontSize}
            fontWeight="bold"
            fill={grey ? STALE_COLOR : fg}
            data-role="value"
          >
            {editing ? '50' : formatValue(value)}
            {w.unit ? ` ${w.unit}` : ''}
          </text>
          <line
            x1={w.x + 8}
            x2={w.x + w.w - 8}
            y1={y}
            y2={y}
            stroke="#c9cdd4"
            strokeWidth={4}
            strokeLinecap="round"
          />
          <line
            x1={w.x + 8}
            x2={w.x + 8 + (w.w - 16) * p}
            y1={y}
            y2={y}
            stroke={grey ? STALE_COLOR : '#165dff'}
            strokeWidth={4}
            strokeLinecap="round"
          />
          <circle
            cx={w.x + 8 + (w.w - 16) * p}
            cy={y}
            r={7}
            fill="#fff"
            stroke={grey ? STALE_COLOR : '#165dff'}
            strokeWidth={2}
            opacity={!editing && !canWrite ? 0.5 : 1}
          />
        </g>
      );
    }
    case 'trend':
      return <Trend widget={w} editing={editing} grey={grey} frame={frame} />;
    case 'bar': {
      const p = editing ? 0.6 : ratio(value, w.min, w.max);
      const color = grey ? STALE_COLOR : (w.bar_color ?? s.color ?? '#165dff');
      const vertical = w.orientation !== 'horizontal';
      return (
        <>
          <rect
            x={w.x}
            y={w.y}
            width={w.w}
            height={w.h}
            rx={s.radius ?? 4}
            fill={bg ?? 'var(--color-fill-2, #f2f3f5)'}
            stroke={s.border_color ?? 'none'}
          />
          {vertical ? (
            <rect
              x={w.x}
              y={w.y + w.h * (1 - p)}
              width={w.w}
              height={w.h * p}
              rx={s.radius ?? 4}
              fill={color}
              data-role="bar"
            />
          ) : (
            <rect
              x={w.x}
              y={w.y}
              width={w.w * p}
              height={w.h}
              rx={s.radius ?? 4}
              fill={color}
              data-role="bar"
            />
          )}
          <text
            x={w.x + w.w / 2}
            y={w.y + w.h / 2}
            textAnchor="middle"
            dominantBaseline="middle"
            fontSize={12}
            fill={TEXT}
            data-role="value"
          >
            {editing ? '' : formatValue(value)}
          </text>
        </>
      );
    }
    case 'text':
      return (
        <>
          {bg || s.border_color ? frame : editing ? frame : null}
          <text
            x={ax}
            y={w.y + w.h / 2}
            textAnchor={anchor}
            dominantBaseline="middle"
            fontSize={fontSize}
            fontWeight={s.font_weight}
            fill={fg}
          >
            {w.text}
          </text>
        </>
      );
    case 'image': {
      const href = w.file ? fileUrl?.(w.file) : undefined;
      return href ? (
        <image href={href} x={w.x} y={w.y} width={w.w} height={w.h} preserveAspectRatio="xMidYMid meet" />
      ) : (
        <>
          {frame}
          <path
            d={`M${w.x},${w.y} L${w.x + w.w},${w.y + w.h} M${w.x + w.w},${w.y} L${w.x},${w.y + w.h}`}
            stroke="rgba(134,144,156,0.35)"
          />
        </>
      );
    }
    case 'link': {
      const sn = 'sn' in w.target ? w.target.sn : undefined;
      return (
        <g
          role="link"
          style={{ cursor: !editing && sn ? 'pointer' : undefined }}
          onClick={!editing && sn ? () => onLink?.(sn) : undefined}
        >
          {frame}
          <text
            x={ax}
            y={w.y + w.h / 2}
            textAnchor={anchor}
            dominantBaseline="middle"
            fontSize={fontSize}
            fill={s.color ?? '#165dff'}
            textDecoration="underline"
          >
            {w.label || sn || ('slot' in w.target ? w.target.slot : '') || '→'}
          </text>
        </g>
      );
    }
    case 'group':
      return editing ? (
        <rect
          x={w.x}
          y={w.y}
          width={w.w}
          height={w.h}
          fill="none"
          stroke="rgba(22,93,255,0.25)"
          strokeDasharray="6 4"
          pointerEvents="none"
        />
      ) : null;
  }
}

function Trend({
  widget: w,
  editing,
  grey,
  frame,
}: {
  widget: Widget & { kind: 'trend' };
  editing: boolean;
  grey: boolean;
  frame: ReactElement;
}) {
  const b = w.binding as { sn?: string; key: string };
  const { points, now } = useTrend(editing ? undefined : b.sn, b.key);
  const top = w.name ? 18 : 4;
  const h = w.h - top - 4;
  const line = editing
    ? Array.from(
        { length: 12 },
        (_, i) => `${((i / 11) * (w.w - 8)).toFixed(1)},${(h / 2 + Math.sin(i) * h * 0.3).toFixed(1)}`,
      ).join(' ')
    : trendPolyline(points, w.minutes, now, w.w - 8, h);
  return (
    <>
      {frame}
      {w.name && (
        <text x={w.x + 6} y={w.y + 13} fontSize={11} fill={TEXT2}>
          {w.name}
        </text>
      )}
      <polyline
        transform={`translate(${w.x + 4} ${w.y + top})`}
        points={line}
        fill="none"
        stroke={grey ? STALE_COLOR : (w.line_color ?? '#165dff')}
        strokeWidth={1.5}
        data-role="trend"
      />
    </>
  );
}
