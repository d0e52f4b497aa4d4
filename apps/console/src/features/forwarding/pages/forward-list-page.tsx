import type { ForwardRuleItem } from '@cellhub/contract/forwarding';
import {
  Form,
  Input,
  Space,
  Switch,
  Tag,
  Tooltip,
  Typography,
  type TableColumnProps,
} from '@arco-design/web-react';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { useLocale } from '../../../lib/i18n';
import { type ForwardListParams, useDeleteForwardRule, useForwardEnabled, useForwardList } from '../api';
import { KIND_KEYS, STATUS_COLORS, targetText } from '../components/labels';
import locale from '../locale';

const clip = { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } as const;

/** /data-transmit/forward/list — the caller's forwarding rules (admins: everyone's). */
export default function ForwardListPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<ForwardListParams>();
  const query = useForwardList(params);
  const remove = useDeleteForwardRule();
  const enable = useForwardEnabled();

  // Sized to fit the 980 px a table has at 1280 px (menu open) with no horizontal scroll: a column scrolled under the
  // fixed Operations column was cut mid-header ("Enabl"). Target takes what is left; the message kinds sit under it
  // and the update time is on the detail page. Operations is as wide as its English buttons.
  const columns: TableColumnProps<ForwardRuleItem>[] = [
    {
      title: t('forward.col.name'),
      dataIndex: 'name',
      width: 140,
      ellipsis: true,
      render: (v: string, row) => <RowLink to={`/data-transmit/forward/detail/${row.id}`}>{v}</RowLink>,
    },
    {
      title: `${t('forward.col.target')} / ${t('forward.col.kinds')}`,
      dataIndex: 'target',
      ellipsis: true,
      render: (_: unknown, row) => (
        <>
          <div style={clip}>
            <Tag
              size="small"
              color={row.target.kind === 'http' ? 'arcoblue' : 'purple'}
              style={{ marginRight: 4 }}
            >
              {row.target.kind.toUpperCase()}
            </Tag>
            <Tooltip content={targetText(row.target)}>
              <span>{targetText(row.target)}</span>
            </Tooltip>
          </div>
          <Typography.Text type="secondary" style={{ ...clip, display: 'block', fontSize: 12 }}>
            {row.kinds.map((k) => t(KIND_KEYS[k])).join(', ')}
          </Typography.Text>
        </>
      ),
    },
    {
      title: t('forward.col.status'),
      dataIndex: 'status',
      width: 100,
      render: (v: ForwardRuleItem['status'], row) => (
        <Tooltip content={row.paused_reason ?? undefined} disabled={!row.paused_reason}>
          <Tag color={STATUS_COLORS[v]}>{t(`forward.status.${v}`)}</Tag>
        </Tooltip>
      ),
    },
    {
      title: t('forward.col.enabled'),
      dataIndex: 'enabled',
      width: 90,
      render: (v: boolean, row) => (
        <Switch
          size="small"
          checked={v}
          aria-label={`${t('forward.col.enabled')} ${row.name}`}
          loading={enable.isPending && enable.variables?.id === row.id}
          onChange={(enabled) => enable.mutate({ id: row.id, enabled })}
        />
      ),
    },
    {
      title: t('forward.col.counters'),
      dataIndex: 'counters',
      width: 180,
      render: (c: ForwardRuleItem['counters']) => (
        <Space size={4} wrap>
          <Tag size="small" color="green">
            {c.delivered}
          </Tag>
          <Tag size="small" color={c.failed > 0 ? 'orange' : 'gray'}>
            {c.failed}
          </Tag>
          <Tag size="small" color={c.dead > 0 ? 'red' : 'gray'}>
            {c.dead}
          </Tag>
          <Tag size="small">{c.pending}</Tag>
        </Space>
      ),
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 220,
      fixed: 'right',
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={`/data-transmit/forward/edit/${row.id}`}
          confirm={t('forward.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/data-transmit/forward/detail/${row.id}`}>{t('forward.detail')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  return (
    <ListPage<ForwardRuleItem, ForwardListParams>
      title={t('forward.title')}
      help={t('forward.help')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('forward.keyword')} field="keyword">
            <Input
              placeholder={t('forward.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 220 }}
            />
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('forward.create'), to: '/data-transmit/forward/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('forward.total', { total })}
      // Narrower than 1280 px the table scrolls, Target keeping 250 px.
      tableProps={{ scroll: { x: 980 } }}
      empty={<ListEmpty text={t('forward.empty')} hint={t('forward.empty.hint')} />}
    />
  );
}
