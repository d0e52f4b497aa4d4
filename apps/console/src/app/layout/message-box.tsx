/**
 * The bell's message box: the caller's messages from the server (GET /api/inbox, docs/inbox.md) on Alerts / OTA /
 * SIM tabs with their unread counts, marked read one by one (clicking a message opens what it is about) or a tab at
 * a time, and the role-switch action (seed section 6). Messages carry a kind and parameters; the texts are here.
 */
import type { InboxCategory, InboxItem } from '@cellhub/contract/inbox';
import { INBOX_CATEGORIES } from '@cellhub/contract/inbox';
import { Badge, Button, Empty, Message, Result, Spin, Tabs } from '@arco-design/web-react';
import { IconCloudDownload, IconIdcard, IconNotification } from '@arco-design/web-react/icon';
import { type ReactElement, useState } from 'react';
import { useNavigate } from 'react-router';
import { useMarkAllRead, useMarkRead, useMessages, useUnread } from '../../features/inbox/api';
import inboxLocale from '../../features/inbox/locale';
import { formatTime } from '../../lib/format-time';
import { type Translate, useLocale } from '../../lib/i18n';
import { useRoleSwitch } from '../../lib/user';

const ICONS: Record<InboxCategory, ReactElement> = {
  alert: <IconNotification />,
  ota: <IconCloudDownload />,
  sim: <IconIdcard />,
};

/** The console page a message opens. */
export function messageLink(m: Pick<InboxItem, 'kind' | 'target_type' | 'target_key'>): string | undefined {
  // Devices shared with the reader: one opens its page, several the "shared with me" list.
  if (m.kind === 'share_received' && !m.target_key) return '/myshare/list?tab=incoming';
  if (!m.target_key) return undefined;
  switch (m.target_type) {
    case 'alert':
      return '/alert/device-trigger/list?tab=history';
    case 'ota_task':
      return `/ota/task/${m.target_key}`;
    case 'sim_card':
      return `/card/detail/${m.target_key}`;
    case 'script':
      return `/script/detail/${m.target_key}`;
    case 'forward_rule':
      return `/data-transmit/forward/detail/${m.target_key}`;
    case 'device':
      // The detail route's product segment is not read by the page; the message names only the serial number.
      return `/device/detail/-/${encodeURIComponent(m.target_key)}`;
    default:
      return undefined;
  }
}

/** Title and line of a message in the reader's language. */
export function messageText(
  t: Translate,
  m: Pick<InboxItem, 'kind' | 'params'>,
): { title: string; body: string } {
  const p = m.params;
  const s = (k: string) => (p[k] === undefined ? '' : String(p[k]));
  switch (m.kind) {
    case 'alert_raised':
      return {
        title: t('inbox.alert_raised.title', { trigger_name: s('trigger_name') }),
        body: t('inbox.alert_raised.body', { device: s('device_name') || s('sn'), value: s('value') }),
      };
    case 'ota_finished':
      return {
        title: t('inbox.ota_finished.title', { task_name: s('task_name') }),
        body:
          t('inbox.ota_finished.body', {
            succeeded: s('succeeded'),
            failed: s('failed'),
            skipped: s('skipped'),
          }) + (p.reason === 'window_ended' ? t('inbox.ota_finished.window') : ''),
      };
    case 'sim_expiring':
      return {
        title: t('inbox.sim_expiring.title', { iccid: s('iccid'), days: s('days') }),
        body: t('inbox.sim_expiring.body', { expiry: formatTime(s('expiry')).slice(0, 16) }),
      };
    case 'sim_data_low':
      return {
        title: t('inbox.sim_data_low.title', { iccid: s('iccid'), percent: s('percent') }),
        body: t('inbox.sim_data_low.body', { remaining: s('remaining_mb') }),
      };
    case 'share_received':
      return {
        title: t('inbox.share_received.title', { from: s('from'), count: s('count') }),
        body: t(s('sn') ? 'inbox.share_received.one' : 'inbox.share_received.many', {
          device: s('device_name') || s('sn'),
          right: t(`inbox.share_received.right.${s('right') === 'control' ? 'control' : 'view'}`),
        }),
      };
    case 'script_disabled':
      return {
        title: t('inbox.script_disabled.title', { script_name: s('script_name') }),
        body: t(
          s('line') && s('line') !== '0' ? 'inbox.script_disabled.line' : 'inbox.script_disabled.body',
          {
            failures: s('failures'),
            line: s('line'),
            error: s('error'),
          },
        ),
      };
    case 'forward_paused':
      return {
        title: t('inbox.forward_paused.title', { rule_name: s('rule_name') }),
        body: t('inbox.forward_paused.body', { error: s('error') }),
      };
    default:
      return { title: m.kind, body: '' };
  }
}

function MessageList({ category, onOpen }: { category: InboxCategory; onOpen: () => void }) {
  const t = useLocale(inboxLocale);
  const navigate = useNavigate();
  const list = useMessages(category, true);
  const markRead = useMarkRead();
  const items = list.data?.pages.flatMap((p) => p.data) ?? [];

  if (list.isLoading) return <Spin className="message-box-state" />;
  if (list.isError && items.length === 0)
    return (
      <Result
        className="message-box-state"
        status="error"
        title={t('inbox.error')}
        extra={
          <Button size="mini" onClick={() => void list.refetch()}>
            {t('inbox.retry')}
          </Button>
        }
      />
    );
  if (items.length === 0)
    return <Empty className="message-box-empty" description={t(`inbox.empty.${category}`)} />;

  const open = (m: InboxItem) => {
    if (!m.read_at) markRead.mutate(m.id);
    const to = messageLink(m);
    if (to) {
      onOpen();
      void navigate(to);
    }
  };

  return (
    <div className="message-box-list">
      {items.map((m) => {
        const { title, body } = messageText(t, m);
        return (
          <div
            key={m.id}
            role="button"
            tabIndex={0}
            data-testid="inbox-item"
            data-unread={m.read_at ? undefined : 'true'}
            className={`message-box-item${m.read_at ? '' : ' message-box-item-unread'}`}
            onClick={() => open(m)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') open(m);
            }}
          >
            <span className="message-box-icon">{ICONS[category]}</span>
            <div className="message-box-text">
              <div className="message-box-title" title={title}>
                {!m.read_at && <Badge status="processing" className="message-box-dot" />}
                {title}
              </div>
              <div className="message-box-body">{body}</div>
              <div className="message-box-meta">
                <span>{formatTime(m.created_at)}</span>
                {!m.read_at && (
                  <Button
                    type="text"
                    size="mini"
                    onClick={(e) => {
                      e.stopPropagation();
                      markRead.mutate(m.id);
                    }}
                  >
                    {t('inbox.markRead')}
                  </Button>
                )}
              </div>
            </div>
          </div>
        );
      })}
      {list.hasNextPage && (
        <Button
          long
          type="text"
          size="small"
          loading={list.isFetchingNextPage}
          onClick={() => void list.fetchNextPage()}
        >
          {t('inbox.more')}
        </Button>
      )}
    </div>
  );
}

export function MessageBox({ onOpen = () => undefined }: { onOpen?: () => void }) {
  const t = useLocale(inboxLocale);
  const { canSwitch, role, switchRole } = useRoleSwitch();
  const [tab, setTab] = useState<InboxCategory>('alert');
  const { data: unread } = useUnread();
  const markAll = useMarkAllRead();

  return (
    <div className="message-box" data-testid="message-box">
      <Tabs activeTab={tab} onChange={(k) => setTab(k as InboxCategory)} type="rounded" size="small">
        {INBOX_CATEGORIES.map((c) => (
          <Tabs.TabPane
            key={c}
            title={
              <span data-testid={`inbox-tab-${c}`}>
                {t(`inbox.tab.${c}`)}
                {unread && unread[c] > 0 ? ` (${unread[c] > 99 ? '99+' : unread[c]})` : ''}
              </span>
            }
          >
            {tab === c && <MessageList category={c} onOpen={onOpen} />}
          </Tabs.TabPane>
        ))}
      </Tabs>
      <div className="message-box-footer">
        <Button
          type="text"
          size="small"
          disabled={!unread || unread[tab] === 0}
          loading={markAll.isPending}
          onClick={() =>
            void markAll.mutateAsync(tab).then(
              (n) => Message.success(t('inbox.allRead.done', { n })),
              () => undefined,
            )
          }
        >
          {t('inbox.allRead')}
        </Button>
        {canSwitch && (
          <Button
            type="text"
            size="small"
            title={
              role === 'admin' ? t('messageBox.switchRoles.toUser') : t('messageBox.switchRoles.toAdmin')
            }
            onClick={() => {
              const next = switchRole();
              if (next) Message.success(t('messageBox.switchRoles.success', { role: t(`role.${next}`) }));
            }}
          >
            {t('messageBox.switchRoles')}
          </Button>
        )}
      </div>
    </div>
  );
}
