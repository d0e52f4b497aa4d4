import type { DeviceHostItem } from '@cellhub/contract/device-hosts';
import {
  Button,
  Form,
  Input,
  Message,
  Select,
  Switch,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { ListEmpty, ListPage, useKeywordList } from '../../../components/list-page';
import { ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions, LinkAction, RowLink } from '../../../components/row-actions';
import { useLocale } from '../../../lib/i18n';
import { type DeviceHostListParams, useDeleteDeviceHost, useDeviceHostList, useSaveDeviceHost } from '../api';
import { HostFormModal } from '../components/host-form-modal';
import { HostState } from '../components/host-state';
import locale from '../locale';

/** /rule-setting/device-host/list — TCP/UDP servers for DTUs in socket mode (admin). */
export default function DeviceHostListPage() {
  const t = useLocale(locale);
  const { form, params, setParams, search } = useKeywordList<
    DeviceHostListParams,
    { keyword?: string; protocol?: 'tcp' | 'udp' }
  >();
  const query = useDeviceHostList(params);
  const remove = useDeleteDeviceHost();
  const save = useSaveDeviceHost();
  const [editing, setEditing] = useState<DeviceHostItem | 'new' | undefined>();

  const toggle = async (row: DeviceHostItem, enabled: boolean) => {
    await save.mutateAsync({ id: row.id, body: { enabled } });
    Message.success(enabled ? t('dh.enabled') : t('dh.disabled'));
  };

  const columns: TableColumnProps<DeviceHostItem>[] = [
    {
      title: t('dh.col.name'),
      dataIndex: 'name',
      render: (v: string, row) => <RowLink to={`/rule-setting/device-host/detail/${row.id}`}>{v}</RowLink>,
    },
    {
      title: t('dh.col.protocol'),
      dataIndex: 'protocol',
      width: 80,
      render: (v: string) => (
        <Tag size="small" color={v === 'tcp' ? 'arcoblue' : 'purple'}>
          {v.toUpperCase()}
        </Tag>
      ),
    },
    {
      title: t('dh.col.address'),
      dataIndex: 'address',
      width: 180,
      render: (v: string) => <span style={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}>{v}</span>,
    },
    {
      title: t('dh.col.state'),
      dataIndex: 'state',
      width: 110,
      render: (_: unknown, row) => <HostState state={row.state} error={row.error} />,
    },
    { title: t('dh.col.connected'), dataIndex: 'connected', width: 100 },
    {
      title: t('dh.col.enabled'),
      dataIndex: 'enabled',
      width: 80,
      render: (v: boolean, row) => (
        <Switch
          size="small"
          checked={v}
          aria-label={v ? t('dh.disable') : t('dh.enable')}
          loading={save.isPending && save.variables?.id === row.id}
          onChange={(on) => void toggle(row, on).catch(() => undefined)}
        />
      ),
    },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 180,
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={() => setEditing(row)}
          confirm={t('dh.deleteConfirm')}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        >
          <LinkAction to={`/rule-setting/device-host/detail/${row.id}`}>{t('dh.detail')}</LinkAction>
        </EditDeleteActions>
      ),
    },
  ];

  const filtered = Boolean(params.keyword || params.protocol);
  return (
    <ListPage<DeviceHostItem, DeviceHostListParams>
      title={t('dh.title')}
      help={t('dh.help')}
      search={
        <ListSearchBar form={form} layout="inline" onSearch={search}>
          <Form.Item label={t('dh.keyword')} field="keyword">
            <Input
              placeholder={t('dh.keyword.placeholder')}
              allowClear
              maxLength={64}
              style={{ width: 220 }}
            />
          </Form.Item>
          <Form.Item label={t('dh.protocol')} field="protocol">
            <Select
              allowClear
              placeholder={t('dh.protocol.all')}
              style={{ width: 160 }}
              options={[
                { value: 'tcp', label: 'TCP' },
                { value: 'udp', label: 'UDP' },
              ]}
            />
          </Form.Item>
        </ListSearchBar>
      }
      create={{ label: t('dh.create'), onClick: () => setEditing('new') }}
      rowKey="id"
      columns={columns}
      query={query}
      quietRefetch
      params={params}
      setParams={setParams}
      total={(total) => t('dh.total', { total })}
      empty={
        filtered ? undefined : (
          <ListEmpty
            text={t('dh.empty')}
            hint={t('dh.empty.hint')}
            actions={
              <Button type="primary" icon={<IconPlus />} onClick={() => setEditing('new')}>
                {t('dh.create')}
              </Button>
            }
          />
        )
      }
    >
      <HostFormModal
        visible={editing !== undefined}
        host={editing === 'new' ? undefined : editing}
        onClose={() => setEditing(undefined)}
      />
    </ListPage>
  );
}
