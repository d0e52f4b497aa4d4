/**
 * The device's life as one timeline (issue 15): produced, tested, shipped to, bound, first connect, SIM activated,
 * unbound, from `GET /api/devices/:sn/timeline` (whoever views the device reads it; other people's names only
 * admins). Self-contained: its query and words live here.
 */
import type { DeviceTimeline, TimelineEvent } from '@cellhub/contract/device-stock';
import { Card, Empty, Skeleton, Timeline, Typography } from '@arco-design/web-react';
import { useQuery } from '@tanstack/react-query';
import { formatTime } from '../../../../lib/format-time';
import { useLocale, type Translate } from '../../../../lib/i18n';
import type { PageLocale } from '../../../../lib/messages';
import { http } from '../../../../lib/request';

const zhCN = {
  'timeline.title': '设备履历',
  'timeline.empty': '暂无记录',
  'timeline.failed': '履历加载失败',
  'timeline.produced': '生产入库',
  'timeline.produced.task': '生产任务：{task}',
  'timeline.tested': '出厂测试',
  'timeline.tested.ok': '测试通过',
  'timeline.tested.failed': '测试未通过',
  'timeline.shipped': '出库',
  'timeline.shipped.customer': '出库给 {customer}',
  'timeline.bound': '绑定',
  'timeline.unbound': '解绑',
  'timeline.user': '用户：{user}',
  'timeline.bound.shipment': '随出库绑定到 {user}',
  'timeline.first_connect': '首次上线',
  'timeline.sim_activated': 'SIM 卡激活',
  'timeline.sim_activated.iccid': 'ICCID：{iccid}',
};
const enUS: Record<keyof typeof zhCN, string> = {
  'timeline.title': 'Timeline',
  'timeline.empty': 'Nothing recorded yet',
  'timeline.failed': 'Could not load the timeline',
  'timeline.produced': 'Produced into stock',
  'timeline.produced.task': 'Production task: {task}',
  'timeline.tested': 'Factory test',
  'timeline.tested.ok': 'Passed',
  'timeline.tested.failed': 'Failed',
  'timeline.shipped': 'Shipped',
  'timeline.shipped.customer': 'Shipped to {customer}',
  'timeline.bound': 'Bound',
  'timeline.unbound': 'Unbound',
  'timeline.user': 'User: {user}',
  'timeline.bound.shipment': 'Bound to {user} by the shipment',
  'timeline.first_connect': 'First connect',
  'timeline.sim_activated': 'SIM activated',
  'timeline.sim_activated.iccid': 'ICCID: {iccid}',
};
const locale: PageLocale = { 'zh-CN': zhCN, 'en-US': enUS };

const DOTS: Record<TimelineEvent['event'], string> = {
  produced: 'rgb(var(--arcoblue-6))',
  tested: 'rgb(var(--cyan-6))',
  shipped: 'rgb(var(--orange-6))',
  bound: 'rgb(var(--green-6))',
  first_connect: 'rgb(var(--green-6))',
  sim_activated: 'rgb(var(--purple-6))',
  unbound: 'rgb(var(--gray-6))',
};

function detailOf(e: TimelineEvent, t: Translate): string {
  const d = e.detail;
  switch (e.event) {
    case 'produced':
      return d.task ? t('timeline.produced.task', { task: String(d.task) }) : '';
    case 'tested':
      return t(d.ok ? 'timeline.tested.ok' : 'timeline.tested.failed');
    case 'shipped':
      return t('timeline.shipped.customer', { customer: String(d.customer ?? '') });
    case 'bound':
      if (d.shipment && d.user) return t('timeline.bound.shipment', { user: String(d.user) });
      return d.user ? t('timeline.user', { user: String(d.user) }) : '';
    case 'unbound':
      return d.user ? t('timeline.user', { user: String(d.user) }) : '';
    case 'sim_activated':
      return d.iccid ? t('timeline.sim_activated.iccid', { iccid: String(d.iccid) }) : '';
    default:
      return '';
  }
}

export default function DeviceTimelineCard({ sn }: { sn: string }) {
  const t = useLocale(locale);
  const query = useQuery({
    queryKey: ['devices', sn, 'timeline'],
    queryFn: () =>
      http.get<DeviceTimeline>(`/api/devices/${encodeURIComponent(sn)}/timeline`, { silent: true }),
  });
  const events = query.data?.events ?? [];
  return (
    <Card bordered={false} title={t('timeline.title')} data-testid="device-timeline">
      {query.isLoading ? (
        <Skeleton text={{ rows: 3 }} animation />
      ) : query.isError ? (
        <Typography.Text type="secondary">{t('timeline.failed')}</Typography.Text>
      ) : events.length === 0 ? (
        <Empty description={t('timeline.empty')} />
      ) : (
        <Timeline mode="left">
          {events.map((e, i) => (
            <Timeline.Item
              key={`${e.event}-${i}`}
              label={formatTime(e.at)}
              dotColor={DOTS[e.event]}
              data-event={e.event}
            >
              <Typography.Text bold>{t(`timeline.${e.event}`)}</Typography.Text>
              {detailOf(e, t) ? (
                <div>
                  <Typography.Text type="secondary">{detailOf(e, t)}</Typography.Text>
                </div>
              ) : null}
            </Timeline.Item>
          ))}
        </Timeline>
      )}
    </Card>
  );
}
