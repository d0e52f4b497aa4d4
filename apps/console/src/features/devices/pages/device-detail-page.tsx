import { Badge, Button, Card, Skeleton, Space, Tabs, Tooltip, Typography } from '@arco-design/web-react';
import { IconRefresh, IconShareAlt } from '@arco-design/web-react/icon';
import type { DeviceDetail } from '@cellhub/contract/devices';
import type { DeviceEvent } from '@cellhub/contract/realtime';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { useDeviceAccess, useDeviceEvents } from '../../../lib/realtime';
import { applyDeviceEvent } from '../components/detail/live-merge';
import OverviewPanel, { OnlineBadge } from '../components/detail/overview-panel';
import { detailKeys, useDeviceDetail } from '../detail-api';
import locale from '../locale/detail-index';
import { ResultPage } from '../../../components/result-page/result-page';
import shareLocale from '../../../components/share-dialog/locale';
import { SharedMark } from '../../../components/share-dialog/shared-mark';
import { whenIdle } from '../../../lib/idle';
import { TunnelsTabTitle } from '../../tunnels/components/tunnels-tab-title';

// The other tabs load when first opened: the overview is what the page shows first (issue 13's load weight).
const PropertiesPanel = lazy(() => import('../components/detail/properties-panel'));
const CommandsPanel = lazy(() => import('../components/detail/commands-panel'));
const DeviceLogPanel = lazy(() => import('../components/detail/device-log-panel'));
const ConfigPanel = lazy(() => import('../components/detail/config-panel'));
const ModbusVariablesCard = lazy(() => import('../components/detail/modbus-variables-card'));
const ShareDialog = lazy(() => import('../../../components/share-dialog/share-dialog'));
// Below the overview: loaded (and its events read) once the browser is idle after the device shows, not before.
const DeviceTimelineCard = lazy(() => import('../components/detail/device-timeline-card'));
// Remote tunnels (docs/tunnels.md): owner or control share; a view share is not offered the tab.
const TunnelsPanel = lazy(() => import('../../tunnels/components/tunnels-panel'));

/** What a tab shows while its chunk downloads. */
const panelLoading = (
  <Card bordered={false}>
    <Skeleton text={{ rows: 6 }} animation />
  </Card>
);

const TABS = ['overview', 'properties', 'commands', 'logs', 'config', 'tunnels'] as const;
type Tab = (typeof TABS)[number];

/** /device/detail/:productKey/:sn — one device: information, data, commands, log and configuration, live. */
export default function DeviceDetailPage() {
  const t = useLocale(locale);
  const { sn = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const wanted = search.get('tab');
  const tab: Tab = (TABS as readonly string[]).includes(wanted ?? '') ? (wanted as Tab) : 'overview';
  const qc = useQueryClient();
  const detail = useDeviceDetail(sn);
  const ts = useLocale(shareLocale);
  const [sharing, setSharing] = useState(false);
  const [idle, setIdle] = useState(false);
  const shown = detail.data !== undefined;
  // The browser's first idle moment after the device is on screen.
  useEffect(() => (shown ? whenIdle(() => setIdle(true)) : undefined), [shown]);

  const live = useDeviceEvents({ sns: [sn] }, (e: DeviceEvent) => {
    qc.setQueryData<DeviceDetail>(detailKeys.device(sn), (d) => (d ? applyDeviceEvent(d, e) : d));
    if (e.type === 'device.command') void qc.invalidateQueries({ queryKey: detailKeys.commands(sn) });
    if (e.type === 'device.config') void qc.invalidateQueries({ queryKey: detailKeys.config(sn) });
    if (e.type !== 'device.properties') void qc.invalidateQueries({ queryKey: detailKeys.logs(sn) });
  });
  // A share of this device was made, changed or ended: read it again (revoked: the not-found page; a new right shows).
  useDeviceAccess([sn], () => void qc.invalidateQueries({ queryKey: detailKeys.device(sn) }));

  if (detail.isError)
    return (
      <ResultPage
        error={detail.error}
        back="/device/list"
        backLabel={t('deviceDetail.backToList')}
        notFoundTitle={t('deviceDetail.notFound')}
        subject={sn}
        onRetry={() => void detail.refetch()}
      />
    );

  const d = detail.data;
  if (!d)
    return (
      <PageContainer>
        <Card bordered={false}>
          <Skeleton text={{ rows: 8 }} animation />
        </Card>
      </PageContainer>
    );

  // A device shared with the caller: view right reads only; neither right manages or re-shares it.
  const share = d.share;
  const owned = !share && d.uid !== null;
  const viewOnly = share?.right === 'view';

  return (
    <PageContainer>
      <Card bordered={false} bodyStyle={{ paddingBottom: 0 }}>
        <Space style={{ width: '100%', justifyContent: 'space-between' }} align="start">
          <Space direction="vertical" size={4}>
            <Space size={12} align="center">
              <Typography.Title heading={5} style={{ margin: 0 }} data-testid="device-title">
                {d.name || d.sn}
              </Typography.Title>
              <span data-testid="device-status">
                <OnlineBadge d={d} t={t} />
              </span>
              <SharedMark share={share} />
            </Space>
            <Typography.Text type="secondary">
              {d.sn} · {d.product_name}
            </Typography.Text>
          </Space>
          <Space>
            <Tooltip content={live === 'open' ? t('deviceDetail.live') : t('deviceDetail.liveLost')}>
              <Badge status={live === 'open' ? 'processing' : 'warning'} text={t('deviceDetail.live')} />
            </Tooltip>
            {owned && (
              <Button icon={<IconShareAlt />} onClick={() => setSharing(true)} data-testid="device-share">
                {ts('shareDialog.action')}
              </Button>
            )}
            <Button
              icon={<IconRefresh />}
              aria-label={t('common.refresh')}
              onClick={() => void qc.invalidateQueries({ queryKey: detailKeys.all(sn) })}
            />
          </Space>
        </Space>
        <Tabs
          activeTab={tab}
          onChange={(k) =>
            setSearch(
              (prev) => {
                const next = new URLSearchParams(prev);
                if (k === 'overview') next.delete('tab');
                else next.set('tab', k);
                return next;
              },
              { replace: true },
            )
          }
          style={{ marginTop: 12 }}
          headerPadding={false}
        >
          {TABS.filter((k) => k !== 'tunnels' || !viewOnly).map((k) => (
            <Tabs.TabPane
              key={k}
              title={k === 'tunnels' ? <TunnelsTabTitle /> : t(`deviceDetail.tab.${k}`)}
            />
          ))}
        </Tabs>
      </Card>
      {tab === 'overview' && <OverviewPanel d={d} />}
      {tab === 'overview' && idle && (
        <Suspense fallback={null}>
          <DeviceTimelineCard sn={d.sn} />
        </Suspense>
      )}
      <Suspense fallback={panelLoading}>
        {tab === 'properties' && <PropertiesPanel d={d} />}
        {tab === 'properties' && <ModbusVariablesCard sn={d.sn} readOnly={viewOnly} />}
        {tab === 'commands' && <CommandsPanel d={d} readOnly={viewOnly} />}
        {tab === 'logs' && <DeviceLogPanel sn={d.sn} />}
        {tab === 'config' && <ConfigPanel sn={d.sn} readOnly={viewOnly} />}
        {tab === 'tunnels' && <TunnelsPanel sn={d.sn} readOnly={viewOnly} />}
      </Suspense>
      {sharing && (
        <Suspense fallback={null}>
          <ShareDialog visible sns={[d.sn]} onClose={() => setSharing(false)} />
        </Suspense>
      )}
    </PageContainer>
  );
}
