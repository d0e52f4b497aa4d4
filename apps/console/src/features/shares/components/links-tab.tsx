import type { ShareLinkItem } from '@cellhub/contract/shares';
import { Tag, type TableColumnProps } from '@arco-design/web-react';
import { useState, type ReactNode } from 'react';
import { ListPage } from '../../../components/list-page';
import { ConfirmAction, RowActions } from '../../../components/row-actions';
import { ExpiryText, ShareRightTag } from '../../../components/share-dialog/share-fields';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteShareLink, useShareLinks, type LinkListParams } from '../api';
import locale from '../locale';
import { Nowrap, SharesEmpty } from './share-cells';
import styles from './share-cells.module.css';

/**
 * My share links: right, devices, uses against the limit, expiry; revoke. The link itself was shown once, when
 * it was made (the server keeps only its digest), so the list cannot copy it again.
 */
export function LinksTab({ tabs }: { tabs: ReactNode }) {
  const t = useLocale(locale);
  const [params, setParams] = useState<LinkListParams>({ current: 1, per_page: 10 });
  const query = useShareLinks(params);
  const revoke = useDeleteShareLink();

  const columns: TableColumnProps<ShareLinkItem>[] = [
    {
      title: t('share.col.created'),
      dataIndex: 'created_at',
      render: (v: string) => <Nowrap>{formatTime(v)}</Nowrap>,
    },
    {
      title: t('share.col.right'),
      dataIndex: 'right',
      render: (_: unknown, r) => <ShareRightTag right={r.right} />,
    },
    { title: t('share.col.devices'), dataIndex: 'devices' },
    {
      title: t('share.col.uses'),
      dataIndex: 'uses',
      render: (_: unknown, r) => (
        <Nowrap>
          {r.uses} / {r.max_uses ?? t('share.unlimited')}
        </Nowrap>
      ),
    },
    {
      title: t('share.col.expires'),
      dataIndex: 'expires_at',
      render: (_: unknown, r) => <ExpiryText iso={r.expires_at} expired={r.expires_at ? undefined : false} />,
    },
    {
      title: t('share.col.state'),
      dataIndex: 'spent',
      render: (spent: boolean) =>
        spent ? (
          <Tag size="small" color="gray">
            {t('share.spent')}
          </Tag>
        ) : (
          <Tag size="small" color="green">
            {t('share.active')}
          </Tag>
        ),
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      render: (_: unknown, r) => (
        <RowActions>
          <ConfirmAction
            title={t('share.link.revoke.confirm')}
            hint={t('share.link.revoke.hint')}
            status="danger"
            onConfirm={() => revoke.mutateAsync(r.id)}
            done={t('share.link.revoke.done')}
          >
            {t('share.action.revoke')}
          </ConfirmAction>
        </RowActions>
      ),
    },
  ];

  return (
    <ListPage<ShareLinkItem, LinkListParams>
      title={t('share.list.title')}
      search={
        <>
          {tabs}
          <div className={styles.muted}>{t('share.link.onceHint')}</div>
        </>
      }
      dividerStyle={{ margin: '16px 0' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('share.total', { total })}
      empty={<SharesEmpty t={t} kind="links" />}
      tableProps={{ scroll: { x: 'max-content' } }}
    />
  );
}
