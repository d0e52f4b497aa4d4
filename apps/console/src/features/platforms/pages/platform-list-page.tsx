import type { PlatformItem, PlatformType } from '@cellhub/contract/platforms';
import { PLATFORM_TYPES } from '@cellhub/contract/platforms';
import { Form, Message, Modal, Tag, type TableColumnProps } from '@arco-design/web-react';
import { useState } from 'react';
import { ListPage, useKeywordList } from '../../../components/list-page';
import { ChoiceFilter, KeywordFilter, ListSearchBar } from '../../../components/list-search-bar';
import { EditDeleteActions } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useDeletePlatform, usePlatformList, useSavePlatform, type PlatformListParams } from '../api';
import PlatformFormFields, {
  bodyOf,
  showPlatformError,
  valuesOf,
  type PlatformValues,
} from '../components/platform-form';
import locale from '../locale';
import styles from './platform.module.css';

const TYPE_COLOR: Record<PlatformType, string> = {
  aliyun: 'orangered',
  tencent: 'arcoblue',
  azure: 'cyan',
  netkit: 'purple',
  mqtt: 'green',
};

function endpointOf(p: PlatformItem): string {
  const c = p.platform_config;
  const host = String(c.hub_host ?? c.host ?? '');
  if (host) return `${host}:${String(c.port ?? '')}`;
  if (p.platform_type === 'aliyun')
    return `*.iot-as-mqtt.${String(c.region_id)}.aliyuncs.com:${String(c.port)}`;
  if (p.platform_type === 'tencent') return `*.iotcloud.tencentdevices.com:${String(c.port)}`;
  return '';
}

export default function PlatformListPage() {
  const t = useLocale(locale);
  const {
    form: filters,
    params,
    setParams,
    search,
  } = useKeywordList<PlatformListParams, { keyword?: string; platform_type?: PlatformType }>();
  const query = usePlatformList(params);
  const remove = useDeletePlatform();
  const save = useSavePlatform();
  const [editing, setEditing] = useState<PlatformItem | null>(null);
  const [form] = Form.useForm<PlatformValues>();

  const onDelete = (row: PlatformItem) =>
    remove.mutateAsync(row.id).then(
      () => Message.success(t('platform.delete.done')),
      (e: unknown) => {
        const count =
          e instanceof ApiError && e.code === 10112
            ? (e.details as { product_count?: number } | undefined)?.product_count
            : undefined;
        Message.error(count !== undefined ? t('platform.delete.bound', { count }) : (e as Error).message);
      },
    );

  const submitEdit = async () => {
    if (!editing) return;
    const values = await form.validate();
    try {
      await save.mutateAsync({ id: editing.id, body: bodyOf(values) });
      Message.success(t('platform.saved'));
      setEditing(null);
    } catch (e) {
      showPlatformError(form, e);
    }
  };

  const columns: TableColumnProps<PlatformItem>[] = [
    { title: t('platform.col.name'), dataIndex: 'name' },
    {
      title: t('platform.col.type'),
      dataIndex: 'platform_type',
      render: (v: PlatformType) => <Tag color={TYPE_COLOR[v]}>{t(`platform.type.${v}`)}</Tag>,
    },
    {
      title: t('platform.col.endpoint'),
      dataIndex: 'endpoint',
      render: (_: unknown, row) => <span className={styles.mono}>{endpointOf(row)}</span>,
    },
    { title: t('platform.col.products'), dataIndex: 'product_count' },
    {
      title: t('platform.col.created'),
      dataIndex: 'createdat',
      render: (v: string) => <span className={styles.nowrap}>{formatTime(v)}</span>,
    },
    {
      title: t('platform.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={() => {
            setEditing(row);
            form.setFieldsValue(valuesOf(row));
          }}
          confirm={t('platform.delete.confirm')}
          onDelete={() => onDelete(row)}
        />
      ),
    },
  ];

  return (
    <ListPage<PlatformItem, PlatformListParams>
      title={t('platform.list.title')}
      search={
        <ListSearchBar form={filters} grid="half" onSearch={search}>
          <KeywordFilter
            label={t('platform.keyword')}
            placeholder={t('platform.keyword.placeholder')}
            onSearch={search}
          />
          <ChoiceFilter
            label={t('platform.type')}
            field="platform_type"
            placeholder={t('platform.type.all')}
            options={PLATFORM_TYPES.map((v) => ({ value: v, label: t(`platform.type.${v}`) }))}
          />
        </ListSearchBar>
      }
      dividerStyle={{ marginTop: 0 }}
      create={{ label: t('platform.create'), to: '/platform/create' }}
      rowKey="id"
      columns={columns}
      query={query}
      params={params}
      setParams={setParams}
      total={(total) => t('platform.total', { total })}
    >
      <Modal
        title={t('platform.editTitle')}
        visible={!!editing}
        onOk={() => void submitEdit()}
        onCancel={() => setEditing(null)}
        confirmLoading={save.isPending}
        okText={t('platform.save')}
        cancelText={t('platform.cancel')}
        style={{ width: 760 }}
        unmountOnExit
      >
        <Form<PlatformValues> form={form} layout="vertical">
          <PlatformFormFields form={form} t={t} editing />
        </Form>
      </Modal>
    </ListPage>
  );
}
