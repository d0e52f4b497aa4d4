import { Alert, Card, Empty, Table, Tag } from '@arco-design/web-react';
import type { ModelEvent, ThingModel } from '@cellhub/contract/thing-model';
import { useQuery } from '@tanstack/react-query';
import { useLocale, useLocaleState } from '../../../../lib/i18n';
import { http } from '../../../../lib/request';
import locale from './model-events.locale';

const LEVEL_COLOR = { info: 'arcoblue', warn: 'orange', error: 'red' } as const;

/** The product's thing model, when the caller may read it (admins); nothing otherwise. */
export function useDeviceModel(productKey: string, enabled: boolean) {
  return useQuery({
    queryKey: ['thing-model', 'one', productKey],
    queryFn: () =>
      http.get<ThingModel>(`/api/thing-models/${encodeURIComponent(productKey)}`, { silent: true }),
    enabled,
    retry: false,
    staleTime: 60_000,
  });
}

/**
 * The events the product's thing model defines. Devices have no event message in the protocol
 * (docs/device-protocol.md), so no occurrence is recorded: the card lists the definitions and says so, and shows
 * no count or time it does not have.
 */
export default function ModelEventsCard({ productKey }: { productKey: string }) {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const model = useDeviceModel(productKey, true);
  if (!model.data) return null;
  const events = model.data.events;
  const nameOf = (e: { name: string; name_us?: string }) => (lang === 'en-US' && e.name_us) || e.name;
  return (
    <Card bordered={false} title={t('me.title')} data-testid="model-events">
      {events.length === 0 ? (
        <Empty description={t('me.none')} />
      ) : (
        <>
          <Alert type="info" content={t('me.noData')} style={{ marginBottom: 12 }} />
          <Table<ModelEvent>
            rowKey="key"
            pagination={false}
            data={events}
            columns={[
              {
                title: t('me.event'),
                render: (_: unknown, e) => (nameOf(e) === e.key ? e.key : `${nameOf(e)} (${e.key})`),
              },
              {
                title: t('me.level'),
                width: 120,
                render: (_: unknown, e) => <Tag color={LEVEL_COLOR[e.level]}>{t(`me.level.${e.level}`)}</Tag>,
              },
              {
                title: t('me.output'),
                render: (_: unknown, e) =>
                  e.output.length === 0
                    ? '-'
                    : e.output
                        .map((p) => `${p.name} (${p.key}): ${p.datatype}${p.unit ? `, ${p.unit}` : ''}`)
                        .join('; '),
              },
            ]}
          />
        </>
      )}
    </Card>
  );
}
