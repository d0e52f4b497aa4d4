import { Card, Empty, Radio, Select, Space, Spin, Table, Typography } from '@arco-design/web-react';
import type { DeviceDetail } from '@cellhub/contract/devices';
import type { PropertySeries, SeriesRange } from '@cellhub/contract/property-series';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { Chart, type ChartTheme } from '../../../../components/chart/chart';
import { formatTime } from '../../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../../lib/i18n';
import { useDeviceEvents } from '../../../../lib/realtime';
import { useThrottled } from '../../../../lib/use-throttled';
import { useDeviceTemplate, withTemplateProperties } from '../../../data-templates/device-properties';
import { seriesKey, usePropertySeries, useProductProperties } from '../../detail-api';
import locale from '../../locale/detail-index';
import { LEVEL_HEX, useDeviceModel, useEventOccurrences } from './device-events-api';
import { foldLiveValue } from './live-series';
import modelLocale from './model-events.locale';
import { bucketLabel, type EventMark, seriesOption } from './series-option';

// The device's thing model events (any viewer): loaded when shown, not with the tab.
const ModelEventsCard = lazy(() => import('./model-events-card'));

const RANGES: SeriesRange[] = ['1h', '24h', '7d', '15d', '30d'];

/**
 * The chart redraws with live readings at most this often (the latest values above follow every reading). The
 * finest buckets are 15 s wide (1 h), so nothing is lost; rebuilding the ECharts option on every reading of a
 * device reporting each second cost the page CPU for nothing the eye can follow.
 */
const LIVE_REDRAW_MS = 5000;

/** Latest values and the history chart of one property, both live from the event stream. */
export default function PropertiesPanel({ d }: { d: DeviceDetail }) {
  const t = useLocale(locale);
  const tm = useLocale(modelLocale);
  const { locale: lang } = useLocaleState();
  const { data: productDefs } = useProductProperties(d.product_key);
  // A data template's variables are the device's properties too (after the product's).
  const { data: template } = useDeviceTemplate(d.sn);
  const defs = useMemo(() => withTemplateProperties(productDefs, template), [productDefs, template]);
  const byKey = useMemo(() => new Map((defs ?? []).map((p) => [p.key, p])), [defs]);
  const nameOf = useCallback(
    (key: string) => {
      const p = byKey.get(key);
      if (!p) return key;
      return (lang === 'en-US' && p.name_us) || p.name || key;
    },
    [byKey, lang],
  );
  const unitOf = (key: string) => byKey.get(key)?.unit ?? '';

  // Chartable: the product's numeric properties in its order, then other numbers and booleans the device sent.
  const chartKeys = useMemo(() => {
    const keys: string[] = [];
    for (const p of defs ?? []) if (p.datatype !== 'string' && p.charttype !== 'none') keys.push(p.key);
    const extra = d.properties
      .filter((p) => typeof p.value !== 'string' && !keys.includes(p.key))
      .map((p) => p.key)
      .sort();
    return [...keys, ...extra];
  }, [d.properties, defs]);

  const [picked, setPicked] = useState<string | undefined>();
  const key = picked && chartKeys.includes(picked) ? picked : chartKeys[0];
  const [range, setRange] = useState<SeriesRange>('24h');
  const series = usePropertySeries(d.sn, key, range);
  const unit = key ? unitOf(key) : '';
  const datatype = key ? byKey.get(key)?.datatype : undefined;

  // Each report of the charted property goes into the cached series, so the chart gains its points as they come.
  const queryClient = useQueryClient();
  useDeviceEvents(key ? { sns: [d.sn], types: ['device.properties'] } : null, (e) => {
    if (e.type !== 'device.properties' || !key || !(key in e.values)) return;
    queryClient.setQueryData<PropertySeries>(seriesKey(d.sn, key, range), (old) =>
      old ? foldLiveValue(old, e.ts, e.values[key]) : old,
    );
  });
  // What the chart draws: the cached series, passed on at most every LIVE_REDRAW_MS while readings arrive.
  const drawn = useThrottled(series.data, LIVE_REDRAW_MS, `${key ?? ''}/${range}`);
  const points = drawn?.buckets.filter((b) => b.avg !== null).length ?? 0;

  // Event occurrences in the chart's window (the card below keeps them fresh on the live stream).
  const model = useDeviceModel(d.sn);
  const occurrences = useEventOccurrences(
    d.sn,
    // From the window's start on, not to its end: live readings stretch the end every second, and a key that moved
    // with it made a new query (and, with model events, a request) per reading.
    { from: drawn?.from, per_page: 100 },
    Boolean(drawn && model.data && model.data.events.length > 0),
  );
  const marks = useMemo<EventMark[]>(() => {
    const defs = new Map((model.data?.events ?? []).map((e) => [e.key, e]));
    return (occurrences.data?.data ?? []).map((o) => {
      const def = defs.get(o.event);
      const name = (def && ((lang === 'en-US' && def.name_us) || def.name)) || o.event;
      return { ts: new Date(o.ts).getTime(), name, color: LEVEL_HEX[o.level] };
    });
  }, [occurrences.data, model.data, lang]);

  const option = useCallback(
    (theme: ChartTheme) =>
      seriesOption(
        drawn!,
        {
          avg: t('deviceDetail.chart.avg'),
          min: t('deviceDetail.chart.min'),
          max: t('deviceDetail.chart.max'),
          band: t('deviceDetail.chart.range'),
          unit,
          datatype,
          on: tm('me.bool.on'),
          off: tm('me.bool.off'),
          events: tm('me.marks'),
        },
        theme,
        marks,
      ),
    [drawn, t, tm, unit, datatype, marks],
  );

  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }}>
      <Card bordered={false} title={t('deviceDetail.latest')}>
        <Table
          rowKey="key"
          pagination={false}
          data={d.properties}
          data-testid="device-latest"
          noDataElement={<Empty description={t('deviceDetail.latest.none')} />}
          columns={[
            { title: t('deviceDetail.latest.key'), dataIndex: 'key' },
            { title: t('deviceDetail.latest.name'), render: (_: unknown, p) => nameOf(p.key) },
            {
              title: t('deviceDetail.latest.value'),
              render: (_: unknown, p) => (
                <span data-testid={`latest-${p.key}`}>
                  {String(p.value)}
                  {unitOf(p.key) ? ` ${unitOf(p.key)}` : ''}
                </span>
              ),
            },
            { title: t('deviceDetail.latest.ts'), render: (_: unknown, p) => formatTime(p.ts) },
          ]}
        />
      </Card>
      <Card
        bordered={false}
        title={t('deviceDetail.chart')}
        extra={
          <Space wrap>
            <Select
              style={{ width: 200 }}
              placeholder={t('deviceDetail.chart.property')}
              value={key}
              onChange={(v: string) => setPicked(v)}
              options={chartKeys.map((k) => ({
                label: nameOf(k) === k ? k : `${nameOf(k)} (${k})`,
                value: k,
              }))}
              data-testid="chart-property"
            />
            <Radio.Group type="button" value={range} onChange={(v: SeriesRange) => setRange(v)}>
              {RANGES.map((r) => (
                <Radio key={r} value={r}>
                  {t(`deviceDetail.chart.range.${r}`)}
                </Radio>
              ))}
            </Radio.Group>
          </Space>
        }
      >
        {!key ? (
          <Empty description={t('deviceDetail.chart.noProperty')} />
        ) : !drawn ? (
          <div style={{ height: 320, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
            <Spin />
          </div>
        ) : drawn.buckets.length === 0 ? (
          <div style={{ height: 320, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
            <Empty description={t('deviceDetail.chart.empty')} />
          </div>
        ) : (
          <div data-testid="property-chart" data-points={points} data-marks={marks.length}>
            <Chart option={option} height={320} />
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('deviceDetail.chart.bucket', { size: bucketLabel(drawn.bucket_seconds) })}
            </Typography.Text>
          </div>
        )}
      </Card>
      <Suspense fallback={null}>
        <ModelEventsCard sn={d.sn} />
      </Suspense>
    </Space>
  );
}
