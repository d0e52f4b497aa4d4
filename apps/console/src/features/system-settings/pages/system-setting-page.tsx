import { Button, Card, Result, Skeleton, Tabs } from '@arco-design/web-react';
import { useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { useMapTileSettings, useSystemSettings } from '../api';
import EmailSettingsForm from '../components/email-settings-form';
import MapSettingsForm from '../components/map-settings-form';
import SmsSettingsForm from '../components/sms-settings-form';
import WechatSettingsForm from '../components/wechat-settings-form';
import locale from '../locale';
import styles from './system-setting-page.module.css';

const TABS = ['sms', 'email', 'wechat', 'map'] as const;
type Tab = (typeof TABS)[number];

/** /system/setting (admin): the notification channels and the map tiles, one tab each (`?tab=email` opens that one). */
export default function SystemSettingPage() {
  const t = useLocale(locale);
  const { data: view, isError, refetch } = useSystemSettings();
  const [search, setSearch] = useSearchParams();
  const wanted = search.get('tab');
  const tab: Tab = TABS.includes(wanted as Tab) ? (wanted as Tab) : 'sms';

  if (isError)
    return (
      <PageContainer>
        <Card bordered={false}>
          <Result
            status="error"
            title={t('systemSetting.loadFailed')}
            extra={
              <Button type="primary" onClick={() => void refetch()}>
                {t('systemSetting.retry')}
              </Button>
            }
          />
        </Card>
      </PageContainer>
    );

  return (
    <PageContainer>
      <Card bordered={false} title={t('systemSetting.title')}>
        {!view ? (
          <Skeleton text={{ rows: 6 }} animation />
        ) : (
          <Tabs
            activeTab={tab}
            onChange={(key) => setSearch({ tab: key }, { replace: true })}
            className={styles.tabs}
          >
            <Tabs.TabPane key="sms" title={t('systemSetting.tab.sms')}>
              <SmsSettingsForm view={view} t={t} />
            </Tabs.TabPane>
            <Tabs.TabPane key="email" title={t('systemSetting.tab.email')}>
              <EmailSettingsForm view={view} t={t} />
            </Tabs.TabPane>
            <Tabs.TabPane key="wechat" title={t('systemSetting.tab.wechat')}>
              <WechatSettingsForm view={view} t={t} />
            </Tabs.TabPane>
            <Tabs.TabPane key="map" title={t('systemSetting.tab.map')}>
              <MapTab />
            </Tabs.TabPane>
          </Tabs>
        )}
      </Card>
    </PageContainer>
  );
}

/** The map tab reads its own setting (GET /api/system/settings/map). */
function MapTab() {
  const t = useLocale(locale);
  const { data } = useMapTileSettings();
  return data ? <MapSettingsForm view={data} t={t} /> : <Skeleton text={{ rows: 4 }} animation />;
}
