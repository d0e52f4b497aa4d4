import type { DataTransmitItem } from '@cellhub/contract/data-transmit';
import {
  Button,
  Form,
  Input,
  Message,
  Select,
  Space,
  Switch,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import {
  type DataTransmitListParams,
  useDeleteTransmitRule,
  useSetTransmitStatus,
  useTransmitGroups,
  useTransmitList,
} from '../api';
import locale from '../locale';

type Device = DataTransmitItem['devices'][number];

/** A cell of device serial numbers: the first three as tags, then "+N". */
function DeviceTags({ devices }: { devices: Device[] }) {
  if (devices.length === 0) return <>-</>;
  return (
    <Space size={4} wrap>
      {devices.slice(0, 3).map((d) => (
        <Tag key={d.sn} size="small" title={d.name || d.sn}>
          {d.sn}
        </Tag>
      ))}
      {devices.length > 3 && <Tag size="small">+{devices.length - 3}</Tag>}
    </Space>
  );
}

/** /data-transmit/list — the user's transmission rules (admins: everyone's). */
export default function DataTransmitListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const { form, params, setParams, search } = useKeywordList<
    DataTransmitListParams,
    { keyword?: string; group?: string; status?: '0' | '1' }
  >();
  const query = useTransmitList(params);
  const groups = useTransmitGroups();
  const remove = useDeleteTransmitRule();
  const setStatus = useSetTransmitStatus();

  const toggle = async (row: DataTransmitItem, on: boolean) => {
    const status = on ? 1 : 0;
    await setStatus.mutateAsync({ id: row.id, status });
    Message.success(t(`dt.statusChanged.${status}`));
  };

  const columns: TableColumnProps<DataTransmitItem>[] = [
    {
      title: t('dt.col.name'),
      dataIndex: 'name',
      width: 180,
      render: (v: string, row) => <RowLink to={`/data-transmit/detail/${row.id}`}>{v}</RowLink>,
    },
    {
      title: t('dt.col.group'),
      dataIndex: 'group',
      width: 120,
      render: (v: string) => <span style={{ whiteSpace: 'nowrap' }}>{v || '-'}</span>,
    },
    {
      title: t('dt.col.status'),
      dataIndex: 'status',
      width: 90,
      render: (v: number, row) => (
        <Switch
          size="small"
          checked={v === 1}
          loading={setStatus.isPending && setStatus.variables?.id === row.id}
          onChange={(on) => void toggle(row, on).catch(() => undefined)}
          aria-label={t('dt.col.status')}
          data-testid={`dt-status-${row.id}`}
        />
      ),
    },
    {
      title: t('dt.col.management'),
      dataIndex: 'management',
      render: (_: unknown, row) => (
        <DeviceTags devices={row.devices.filter((d) => d.role === 'management')} />
      ),
    },
    {
      title: t('dt.col.edge'),
      dataIndex: 'edge',
      render: (_: unknown, row) => <DeviceTags devices={row.devices.filter((d) => d.role === 'edge')} />,
    },
    {
      title: t('dt.col.mode'),
      dataIndex: 'address_mode',
      width: 120,
      render: (v: string) => (
        <Tag size="small" color={v === 'modbus' ? 'purple' : 'gray'} title={t(`dt.mode.${v}`)}>
          {t(`dt.mode.short.${v}`)}
        </Tag>
      ),
    },
    {
      title: t('dt.col.updated'),
      dataIndex: 'updatedat',
      width: 170,
      render: (v: string) => <span style={{ whiteSpace: 'nowrap' }}>{formatTime(v)}</span>,
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 180,
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={`/data-transmit/edit/${row.id}`}
          confirm={t('dt.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/data-transmit/detail/${row.id}`}>{t('dt.detail')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  const filtered = Boolean(params.keyword || params.group || params.status);
  return (
    <ListPage<DataTransmitItem, DataTransmitListParams>
      title={t('dt.title')}
      help={t('dt.help')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('dt.keyword')} field="keyword">
            <Input
              placeholder={t('dt.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 200 }}
              data-testid="dt-keyword"
            />
          </Form.Item>
          <Form.Item label={t('dt.group')} field="group">
            <Select allowClear placeholder={t('dt.group.all')} style={{ width: 160 }} data-testid="dt-group">
              {(groups.data ?? []).map((g) => (
                <Select.Option key={g} value={g}>
                  {g}
                </Select.Option>
              ))}
            </Select>
          </Form.Item>
          <Form.Item label={t('dt.status')} field="status">
            <Select allowClear placeholder={t('dt.status.all')} style={{ width: 120 }}>
              <Select.Option value="1">{t('dt.status.1')}</Select.Option>
              <Select.Option value="0">{t('dt.status.0')}</Select.Option>
            </Select>
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('dt.create'), to: '/data-transmit/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('dt.total', { total })}
      empty={
        filtered ? undefined : (
          <ListEmpty
            text={t('dt.empty')}
            hint={t('dt.empty.hint')}
            actions={
              <Button type="primary" onClick={() => void navigate('/data-transmit/create')}>
                {t('dt.create')}
              </Button>
            }
          />
        )
      }
    />
  );
}
