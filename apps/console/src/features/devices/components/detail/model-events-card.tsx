import { Card, Empty, Table, Tag, Typography } from '@arco-design/web-react';
import type { DeviceEventItem, EventParamValue, ModelEvent } from '@cellhub/contract/thing-model';
import { formatTime } from '../../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../../lib/i18n';
import type { RealtimeClient } from '../../../../lib/realtime';
import { LEVEL_COLOR, useDeviceModel, useEventOccurrences, useLiveOccurrences } from './device-events-api';
import locale from './model-events.locale';

/**
 * The thing model events of a device: the latest occurrences it reported on `P/up/event` (time, event, level,
 * parameters with the model's names and units), live as they come. Any viewer of the device reads it.
 */
export default function ModelEventsCard({ sn, realtime }: { sn: string; realtime?: RealtimeClient }) {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const model = useDeviceModel(sn);
  const list = useEventOccurrences(sn, { per_page: 20 });
  useLiveOccurrences(sn, realtime);
  if (!model.data) return null;
  const defs = new Map<string, ModelEvent>(model.data.events.map((e) => [e.key, e]));
  const nameOf = (e: { name: string; name_us?: string }) => (lang === 'en-US' && e.name_us) || e.name;
  const paramsOf = (o: DeviceEventItem) => {
    const out = defs.get(o.event)?.output ?? [];
    const entries = Object.entries(o.params) as [string, EventParamValue][];
    if (entries.length === 0) return '-';
    return entries
      .map(([k, v]) => {
        const p = out.find((x) => x.key === k);
        const value = typeof v === 'boolean' ? t(v ? 'me.bool.on' : 'me.bool.off') : String(v);
        return `${p?.name ?? k}: ${value}${p?.unit ? ` ${p.unit}` : ''}`;
      })
      .join('; ');
  };
  const none = model.data.events.length === 0;
  return (
    <Card
      bordered={false}
      title={t('me.title')}
      data-testid="model-events"
      extra={
        list.data && list.data.total > 0 ? (
          <Typography.Text type="secondary">{t('me.total', { n: list.data.total })}</Typography.Text>
        ) : null
      }
    >
      <Table<DeviceEventItem>
        rowKey="id"
        size="small"
        pagination={false}
        loading={list.isLoading}
        data={list.data?.data ?? []}
        noDataElement={<Empty description={t(none ? 'me.none' : 'me.empty')} />}
        columns={[
          { title: t('me.time'), width: 180, render: (_: unknown, o) => formatTime(o.ts) },
          {
            title: t('me.event'),
            render: (_: unknown, o) => {
              const d = defs.get(o.event);
              const name = d ? nameOf(d) : nameOf(o);
              return name === o.event ? o.event : `${name} (${o.event})`;
            },
          },
          {
            title: t('me.level'),
            width: 100,
            render: (_: unknown, o) => <Tag color={LEVEL_COLOR[o.level]}>{t(`me.level.${o.level}`)}</Tag>,
          },
          { title: t('me.params'), render: (_: unknown, o) => paramsOf(o) },
        ]}
      />
    </Card>
  );
}
