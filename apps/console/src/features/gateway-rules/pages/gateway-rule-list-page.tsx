import type { GatewayRuleItem } from '@cellhub/contract/gateway-rules';
import { Button, Form, Input, type TableColumnProps } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { type GatewayRuleListParams, useDeleteGatewayRule, useGatewayRuleList } from '../api';
import { OnlineBadge } from '../components/online-badge';
import { deviceLink, GATEWAY_RULES_BASE } from '../device-link';
import locale from '../locale';

const BASE = GATEWAY_RULES_BASE;

/** /rule-setting/gate-way/list — gateway rules: a gateway device and the sub-devices it speaks for. */
export default function GatewayRuleListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<GatewayRuleListParams>();
  const query = useGatewayRuleList(params);
  const remove = useDeleteGatewayRule();

  const columns: TableColumnProps<GatewayRuleItem>[] = [
    {
      title: t('gwRule.col.name'),
      dataIndex: 'name',
      render: (v: string, row) => <RowLink to={`${BASE}/detail/${row.id}`}>{v}</RowLink>,
    },
    {
      title: t('gwRule.col.gateway'),
      dataIndex: 'gateway_sn',
      render: (v: string, row) => (
        <span>
          <RowLink to={deviceLink(row.product_key, v)}>{v}</RowLink>
          {row.gateway_name ? (
            <span style={{ color: 'var(--color-text-3)' }}> · {row.gateway_name}</span>
          ) : null}
        </span>
      ),
    },
    {
      title: t('gwRule.col.product'),
      dataIndex: 'product_name',
      render: (v: string, row) => v || row.product_key,
    },
    {
      title: t('gwRule.col.online'),
      dataIndex: 'online',
      width: 110,
      render: (v: number) => <OnlineBadge online={v} on={t('gwRule.online')} off={t('gwRule.offline')} />,
    },
    { title: t('gwRule.col.subs'), dataIndex: 'sub_device_count', width: 110 },
    {
      title: t('gwRule.col.updated'),
      dataIndex: 'updatedat',
      width: 180,
      render: (v: string) => <span style={{ whiteSpace: 'nowrap' }}>{formatTime(v)}</span>,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 150,
      render: (_: unknown, row) => (
        <EditDeleteActions
          confirm={t('gwRule.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`${BASE}/detail/${row.id}`}>{t('gwRule.detail')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<GatewayRuleItem, GatewayRuleListParams>
      title={t('gwRule.title')}
      help={t('gwRule.help')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('gwRule.keyword')} field="keyword">
            <Input
              placeholder={t('gwRule.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 260 }}
              data-testid="gw-keyword"
            />
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('gwRule.create'), to: `${BASE}/create` }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      empty={
        <ListEmpty
          text={params.keyword ? t('gwRule.noMatch') : t('gwRule.empty')}
          actions={
            <Button type="primary" onClick={() => void navigate(`${BASE}/create`)}>
              {t('gwRule.create')}
            </Button>
          }
        />
      }
      total={(total) => t('gwRule.total', { total })}
    />
  );
}
