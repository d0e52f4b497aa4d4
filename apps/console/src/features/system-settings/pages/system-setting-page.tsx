import { Button, Card, Result, Skeleton, Tabs } from '@arco-design/web-react';
import { useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { useSystemSettings } from '../api';
import EmailSettingsForm from '../components/email-settings-form';
import SmsSettingsForm from '../components/sms-settings-form';
import WechatSettingsForm from '../components/wechat-settings-form';
import locale from '../locale';
import styles from './system-setting-page.module.css';

const TABS = ['sms', 'email', 'wechat'] as const;
type Tab = (typeof TABS)[number];

/** /system/setting (admin): the notification channels, one tab each (`?tab=email` opens that one). */
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
      <Card bordered={false} title={t('systemSetting.title')} className={styles.card}>
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
          </Tabs>
        )}
      </Card>
    </PageContainer>
  );
}
