import type { OutgoingShareItem } from '@cellhub/contract/shares';
import type { TableColumnProps } from '@arco-design/web-react';
import { useState, type ReactNode } from 'react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { ButtonAction, ConfirmAction, RowActions } from '../../../components/row-actions';
import { ExpiryText, ShareRightTag } from '../../../components/share-dialog/share-fields';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteShare, useOutgoingShares, type ShareListParams } from '../api';
import locale from '../locale';
import EditShareModal from './edit-share-modal';
import { DeviceCell, Nowrap, SharesEmpty, StackCell } from './share-cells';

interface Filter {
  keyword?: string;
  sn?: string;
}

/** What I shared: with whom, which right, since when and until when; change or revoke. */
export function OutgoingTab({ tabs }: { tabs: ReactNode }) {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<ShareListParams, Filter>();
  const query = useOutgoingShares(params);
  const revoke = useDeleteShare();
  const [editing, setEditing] = useState<OutgoingShareItem | null>(null);

  const columns: TableColumnProps<OutgoingShareItem>[] = [
    {
      title: t('share.col.device'),
      dataIndex: 'sn',
      render: (_: unknown, r) => <DeviceCell sn={r.sn} name={r.device_name} productKey={r.product_key} />,
    },
    { title: t('share.col.product'), dataIndex: 'product_name' },
    {
      title: t('share.col.to'),
      dataIndex: 'to_username',
      render: (_: unknown, r) => <StackCell main={r.to_username} sub={r.to_phone} />,
    },
    {
      title: t('share.col.right'),
      dataIndex: 'right',
      render: (_: unknown, r) => <ShareRightTag right={r.right} />,
    },
    {
      title: t('share.col.since'),
      dataIndex: 'created_at',
      render: (v: string) => <Nowrap>{formatTime(v)}</Nowrap>,
    },
    {
      title: t('share.col.expires'),
      dataIndex: 'expires_at',
      render: (_: unknown, r) => <ExpiryText iso={r.expires_at} expired={r.expired} />,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      render: (_: unknown, r) => (
        <RowActions>
          <ButtonAction onClick={() => setEditing(r)}>{t('share.action.edit')}</ButtonAction>
          <ConfirmAction
            title={t('share.revoke.confirm')}
            hint={t('share.revoke.hint', { user: r.to_username })}
            status="danger"
            onConfirm={() => revoke.mutateAsync(r.id)}
            done={t('share.revoke.done')}
          >
            {t('share.action.revoke')}
          </ConfirmAction>
        </RowActions>
      ),
    },
  ];

  return (
    <ListPage<OutgoingShareItem, ShareListParams>
      title={t('share.list.title')}
      search={
        <>
          {tabs}
          <ListSearchBar form={form} grid="half" onSearch={search}>
            <KeywordFilter
              label={t('share.filter.keyword')}
              placeholder={t('share.filter.keyword.outgoing')}
              onSearch={search}
            />
            <KeywordFilter
              field="sn"
              label={t('share.filter.sn')}
              placeholder={t('share.filter.sn.placeholder')}
              onSearch={search}
            />
          </ListSearchBar>
        </>
      }
      dividerStyle={{ marginTop: 0 }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('share.total', { total })}
      empty={<SharesEmpty t={t} kind="outgoing" />}
      tableProps={{ scroll: { x: 'max-content' } }}
    >
      <EditShareModal share={editing} onClose={() => setEditing(null)} />
    </ListPage>
  );
}
