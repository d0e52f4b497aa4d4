import { Modal, InputNumber, Message, Space, Typography } from '@arco-design/web-react';
import type { PropertySeries } from '@cellhub/contract/property-series';
import type { SceneDevice } from '@cellhub/contract/scenes';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useDeviceEvents, type RealtimeClient } from '../../../lib/realtime';
import { ApiError, http } from '../../../lib/request';
import { fetchSceneValues, sceneImageFiles, useSceneImageUrls, writeWidget } from '../api';
import { bindingOf, fitScale, type SceneDoc, type Widget } from '../scene-editor-model';
import { SceneLiveStore, bindingKey, frameScheduler } from '../scene-live-store';
import { LiveContext, type LiveContextValue } from './live-context';
import { SceneCanvas } from './scene-canvas';
import styles from './scene-editor.module.css';

type T = (key: string, vars?: Record<string, string | number>) => string;

export interface SceneLiveViewProps {
  sceneId: number;
  doc: SceneDoc;
  devices: SceneDevice[];
  /** False for view-share viewers: every control is disabled. */
  canControl: boolean;
  backgroundUrl?: string;
  fileUrl?: (file: string) => string | undefined;
  onLink?: (sn: string) => void;
  /** The element shown full screen (presentation mode). */
  stageRef?: React.RefObject<HTMLDivElement | null>;
  t: T;
  /** Tests hand in their own store, clock and socket. */
  store?: SceneLiveStore;
  realtime?: RealtimeClient;
  tickMs?: number;
}

const enc = encodeURIComponent;

/** The live scene: values from GET /values, then the WebSocket; a clock greys stale values; controls write. */
export function SceneLiveView(props: SceneLiveViewProps) {
  const { doc, devices, sceneId, t } = props;
  const [store] = useState(() => props.store ?? new SceneLiveStore({ schedule: frameScheduler() }));
  const [cycles] = useState(() => new Map<string, number | null>());
  const [zoom, setZoom] = useState(1);
  const innerRef = useRef<HTMLDivElement>(null);
  const stageRef = props.stageRef ?? innerRef;
  const sns = useMemo(() => devices.filter((d) => d.visible).map((d) => d.sn), [devices]);
  const control = useMemo(() => new Set(devices.filter((d) => d.control).map((d) => d.sn)), [devices]);
  const images = useSceneImageUrls(props.fileUrl ? undefined : sceneId, sceneImageFiles(doc));
  const bg = doc.canvas.background;
  const backgroundUrl = props.backgroundUrl ?? (bg ? images[bg] : undefined);
  const fileUrl = useMemo(() => props.fileUrl ?? ((f: string) => images[f]), [props.fileUrl, images]);

  // Online state known from the detail.
  useEffect(() => {
    for (const d of devices) store.setOnline(d.sn, d.online === 1);
  }, [devices, store]);

  // First values and cycles.
  useEffect(() => {
    let stop = false;
    void fetchSceneValues(sceneId)
      .then((v) => {
        if (stop) return;
        for (const item of v.items) {
          cycles.set(bindingKey(item.sn, item.key), item.cycle_s);
          if (item.value !== null && item.ts)
            store.setValues(item.sn, { [item.key]: item.value }, Date.parse(item.ts));
          store.setOnline(item.sn, item.online === 1);
        }
        store.tick();
      })
      .catch(() => undefined);
    return () => {
      stop = true;
    };
  }, [sceneId, store, cycles]);

  // Trend history: the last N minutes of each trend binding.
  useEffect(() => {
    const now = Date.now();
    for (const w of doc.widgets) {
      if (w.kind !== 'trend') continue;
      const b = bindingOf(w);
      if (!b?.sn || !b.key || !sns.includes(b.sn)) continue;
      store.trackSeries(b.sn, b.key);
      void http
        .get<PropertySeries>(`/api/devices/${enc(b.sn)}/properties/series`, {
          silent: true,
          params: {
            key: b.key,
            from: new Date(now - w.minutes * 60_000).toISOString(),
            to: new Date(now).toISOString(),
            points: 120,
          },
        })
        .then((s) =>
          store.trackSeries(
            b.sn!,
            b.key,
            s.buckets.filter((x) => x.avg !== null).map((x) => ({ t: Date.parse(x.ts), v: x.avg! })),
          ),
        )
        .catch(() => undefined);
    }
  }, [doc, sns, store]);

  useDeviceEvents(
    sns.length ? { sns, types: ['device.properties', 'device.online'] } : null,
    (e) => {
      if (e.type === 'device.properties') store.setValues(e.sn, e.values, Date.parse(e.ts) || Date.now());
      else if (e.type === 'device.online') store.setOnline(e.sn, e.online === 1);
    },
    props.realtime,
  );

  // The clock that greys stale values and slides trend windows.
  useEffect(() => {
    const id = setInterval(() => store.tick(), props.tickMs ?? 1000);
    return () => clearInterval(id);
  }, [store, props.tickMs]);

  // Fit the canvas to the stage, and again when it resizes (full screen, window).
  useEffect(() => {
    const el = stageRef.current;
    if (!el) return;
    const apply = () => {
      if (el.clientWidth)
        setZoom(fitScale(doc.canvas, el.clientWidth, el.clientHeight, document.fullscreenElement ? 0 : 24));
    };
    apply();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(apply);
    ro.observe(el);
    return () => ro.disconnect();
  }, [doc.canvas, stageRef]);

  const live = useMemo<LiveContextValue>(
    () => ({
      store,
      cycles,
      control: (sn) => props.canControl && control.has(sn),
    }),
    [store, cycles, control, props.canControl],
  );

  const doWrite = async (w: Widget, value: number | boolean) => {
    try {
      const r = await writeWidget(sceneId, w.id, value);
      const reply = typeof r.reply === 'string' ? r.reply : JSON.stringify(r.reply ?? null);
      Message.success(
        t('scene.write.done', { reply: reply.length > 120 ? `${reply.slice(0, 120)}…` : reply }),
      );
    } catch (e) {
      Message.error(e instanceof ApiError ? e.message : t('scene.write.failed'));
    }
  };

  const onControl = (w: Widget, value: number | boolean) => {
    if (w.kind === 'setpoint') {
      let next = typeof value === 'number' ? value : w.min;
      Modal.confirm({
        title: t('scene.setpoint.title', { name: w.name || t('scene.kind.setpoint') }),
        content: (
          <Space direction="vertical">
            <Typography.Text type="secondary">
              {t('scene.setpoint.range', { min: w.min, max: w.max })}
            </Typography.Text>
            <InputNumber
              autoFocus
              defaultValue={next}
              min={w.min}
              max={w.max}
              step={w.step}
              suffix={w.unit}
              data-testid="setpoint-input"
              onChange={(v) => (next = v)}
            />
          </Space>
        ),
        onOk: () => doWrite(w, next),
      });
      return;
    }
    if (w.kind === 'switch' && w.confirm) {
      Modal.confirm({
        title: t('scene.switch.confirm', { name: w.name || t('scene.kind.switch'), value: String(value) }),
        onOk: () => doWrite(w, value),
      });
      return;
    }
    void doWrite(w, value);
  };

  return (
    <LiveContext.Provider value={live}>
      <div
        ref={stageRef as React.RefObject<HTMLDivElement>}
        className={styles.viewStage}
        data-testid="scene-view"
      >
        <div style={{ margin: '0 auto', width: 'fit-content' }}>
          <SceneCanvas
            doc={doc}
            zoom={zoom}
            editing={false}
            backgroundUrl={backgroundUrl}
            fileUrl={fileUrl}
            onControl={onControl}
            onLink={props.onLink}
            labels={{ offline: t('scene.offline'), stale: t('scene.stale'), set: t('scene.set') }}
          />
        </div>
      </div>
    </LiveContext.Provider>
  );
}
