import { Tabs } from '@arco-design/web-react';
import { useSearchParams } from 'react-router';
import type { Translate } from '../../../lib/i18n';

export const SHARE_TABS = ['outgoing', 'incoming', 'links'] as const;
export type ShareTab = (typeof SHARE_TABS)[number];

/** The tab in the address (`?tab=incoming`), so a link or a reload opens the same one. */
export function useShareTab(): [ShareTab, (tab: ShareTab) => void] {
  const [search, setSearch] = useSearchParams();
  const wanted = search.get('tab');
  const tab = (SHARE_TABS as readonly string[]).includes(wanted ?? '') ? (wanted as ShareTab) : 'outgoing';
  return [tab, (next) => setSearch(next === 'outgoing' ? {} : { tab: next }, { replace: true })];
}

/** The three lists of My Shares, over the filter row of the one shown. */
export function ShareTabs({
  tab,
  onChange,
  t,
}: {
  tab: ShareTab;
  onChange: (tab: ShareTab) => void;
  t: Translate;
}) {
  return (
    <Tabs
      activeTab={tab}
      onChange={(k) => onChange(k as ShareTab)}
      headerPadding={false}
      style={{ marginBottom: 16 }}
    >
      {SHARE_TABS.map((k) => (
        <Tabs.TabPane key={k} title={t(`share.tab.${k}`)} />
      ))}
    </Tabs>
  );
}
