import { useLocale } from '../../../lib/i18n';
import { IncomingTab } from '../components/incoming-tab';
import { LinksTab } from '../components/links-tab';
import { OutgoingTab } from '../components/outgoing-tab';
import { ShareTabs, useShareTab } from '../components/share-tabs';
import locale from '../locale';

/** /myshare/list: what I shared, what is shared with me, and my share links (`?tab=incoming|links`). */
export default function MyShareListPage() {
  const t = useLocale(locale);
  const [tab, setTab] = useShareTab();
  const tabs = <ShareTabs tab={tab} onChange={setTab} t={t} />;
  if (tab === 'incoming') return <IncomingTab tabs={tabs} />;
  if (tab === 'links') return <LinksTab tabs={tabs} />;
  return <OutgoingTab tabs={tabs} />;
}
