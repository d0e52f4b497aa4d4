import { Button, Card, Result, Skeleton, Tabs } from '@arco-design/web-react';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { useUserInfo } from '../../../lib/user';
import BasicInfoForm from '../components/basic-info-form';
import CertificationPanel from '../components/certification-panel';
import SecuritySettings from '../components/security-settings';
import UserHeader from '../components/user-header';
import locale from '../locale';
import styles from './user-setting-page.module.css';

type Dialog = 'password' | 'phone' | 'wechat' | null;

export default function UserSettingPage() {
  const t = useLocale(locale);
  const { data: info, isError, refetch } = useUserInfo();
  const [search] = useSearchParams();
  const [tab, setTab] = useState(() => {
    const wanted = search.get('tab');
    return wanted === 'security' || wanted === 'certification' ? wanted : 'basic';
  });
  const [dialog, setDialog] = useState<Dialog>(null);

  if (isError)
    return (
      <PageContainer>
        <Card>
          <Result
            status="error"
            title={t('userSetting.loadFailed')}
            extra={
              <Button type="primary" onClick={() => void refetch()}>
                {t('common.retry')}
              </Button>
            }
          />
        </Card>
      </PageContainer>
    );

  if (!info)
    return (
      <PageContainer>
        <Card>
          <Skeleton image={{ shape: 'circle' }} text={{ rows: 3 }} animation />
        </Card>
      </PageContainer>
    );

  return (
    <PageContainer>
      <Card bordered={false}>
        <UserHeader
          info={info}
          onEditPhone={() => {
            setTab('security');
            setDialog('phone');
          }}
        />
      </Card>
      <Card bordered={false} className={styles.tabsCard}>
        <Tabs type="rounded" activeTab={tab} onChange={setTab} lazyload>
          <Tabs.TabPane key="basic" title={t('userSetting.tab.basic')}>
            {/* Keyed by account: after a sign-in as someone else no old values linger in the form. */}
            <BasicInfoForm key={info.uid} info={info} />
          </Tabs.TabPane>
          <Tabs.TabPane key="security" title={t('userSetting.tab.security')}>
            <SecuritySettings info={info} dialog={dialog} setDialog={setDialog} />
          </Tabs.TabPane>
          <Tabs.TabPane key="certification" title={t('userSetting.tab.certification')}>
            <CertificationPanel info={info} />
          </Tabs.TabPane>
        </Tabs>
      </Card>
    </PageContainer>
  );
}
