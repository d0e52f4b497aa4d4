import type { IncomingShareItem } from '@cellhub/contract/shares';
import type { TableColumnProps } from '@arco-design/web-react';
import type { ReactNode } from 'react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { ConfirmAction, LinkAction, RowActions } from '../../../components/row-actions';
import { ExpiryText, ShareRightTag } from '../../../components/share-dialog/share-fields';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { useDeleteShare, useIncomingShares, type ShareListParams } from '../api';
import locale from '../locale';
import { DeviceCell, deviceUrl, Nowrap, SharesEmpty } from './share-cells';

interface Filter {
  keyword?: string;
  sn?: string;
}

/** Shared with me: whose device, which right, until when; open it or leave the share. */
export function IncomingTab({ tabs }: { tabs: ReactNode }) {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<ShareListParams, Filter>();
  const query = useIncomingShares(params);
  const leave = useDeleteShare();

  const columns: TableColumnProps<IncomingShareItem>[] = [
    {
      title: t('share.col.device'),
      dataIndex: 'sn',
      render: (_: unknown, r) => <DeviceCell sn={r.sn} name={r.device_name} productKey={r.product_key} />,
    },
    { title: t('share.col.product'), dataIndex: 'product_name' },
    { title: t('share.col.owner'), dataIndex: 'owner_username' },
    {
      title: t('share.col.right'),
      dataIndex: 'right',
      render: (_: unknown, r) => <ShareRightTag right={r.right} />,
    },
    {
      title: t('share.col.since'),
      dataIndex: 'since',
      render: (v: string) => <Nowrap>{formatTime(v)}</Nowrap>,
    },
    {
      title: t('share.col.expires'),
      dataIndex: 'expires_at',
      render: (_: unknown, r) => <ExpiryText iso={r.expires_at} />,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      render: (_: unknown, r) => (
        <RowActions>
          <LinkAction to={deviceUrl(r.sn, r.product_key)}>{t('share.action.detail')}</LinkAction>
          <ConfirmAction
            title={t('share.leave.confirm')}
            hint={t('share.leave.hint')}
            status="danger"
            onConfirm={() => leave.mutateAsync(r.id)}
            done={t('share.leave.done')}
          >
            {t('share.action.leave')}
          </ConfirmAction>
        </RowActions>
      ),
    },
  ];

  return (
    <ListPage<IncomingShareItem, ShareListParams>
      title={t('share.list.title')}
      search={
        <>
          {tabs}
          <ListSearchBar form={form} grid="half" onSearch={search}>
            <KeywordFilter
              label={t('share.filter.keyword')}
              placeholder={t('share.filter.keyword.incoming')}
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
      empty={<SharesEmpty t={t} kind="incoming" />}
      tableProps={{ scroll: { x: 'max-content' } }}
    />
  );
}
