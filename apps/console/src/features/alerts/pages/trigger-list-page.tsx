import { Card, Tabs } from '@arco-design/web-react';
import { useSearchParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { HistoryTab } from '../components/history-tab';
import { TriggersTab } from '../components/triggers-tab';
import locale from '../locale';

/** /alert/device-trigger/list: the triggers, and the alerts they raised on a second tab (`?tab=history`). */
export default function TriggerListPage() {
  const t = useLocale(locale);
  const [search, setSearch] = useSearchParams();
  const tab = search.get('tab') === 'history' ? 'history' : 'triggers';
  return (
    <PageContainer>
      <Card bordered={false} title={t('alert.trigger.title')}>
        <Tabs
          activeTab={tab}
          onChange={(key) => setSearch(key === 'history' ? { tab: 'history' } : {}, { replace: true })}
          destroyOnHide
        >
          <Tabs.TabPane key="triggers" title={t('alert.tab.triggers')}>
            <TriggersTab />
          </Tabs.TabPane>
          <Tabs.TabPane key="history" title={t('alert.tab.history')}>
            <HistoryTab />
          </Tabs.TabPane>
        </Tabs>
      </Card>
    </PageContainer>
  );
}
