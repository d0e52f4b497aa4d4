import type { ProductiveGroupDevice } from '@cellhub/contract/production';
import {
  Button,
  Card,
  Descriptions,
  Form,
  Input,
  Modal,
  Notification,
  Popconfirm,
  Select,
  Space,
  Table,
  Tag,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { RowLink } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import {
  useAddToGroup,
  useDeleteGroup,
  useGroup,
  useGroupDevices,
  useRemoveFromGroup,
  useTaskOptions,
  type GroupListParams,
} from '../api';
import locale from '../locale';

/** /productive/group/:id: a batch's devices; add a task's devices or sns by hand, take devices out. */
export default function ProductiveGroupDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useGroup(isRecordId(id) ? id : undefined);
  const [params, setParams] = useState<GroupListParams>({ current: 1, per_page: 10 });
  const devices = useGroupDevices(id, params, load.data !== undefined);
  const add = useAddToGroup(id);
  const removeDevice = useRemoveFromGroup(id);
  const removeGroup = useDeleteGroup();
  const tasks = useTaskOptions();
  const [adding, setAdding] = useState(false);
  const [addForm] = Form.useForm<{ task_id?: number; sns?: string }>();

  const state = recordState(load, {
    back: '/productive/group',
    backLabel: t('prod.group.back'),
    badId: !isRecordId(id),
  });
  if (state) return <PageContainer>{state}</PageContainer>;
  const group = load.data!;

  const submit = async () => {
    const v = await addForm.validate();
    if (v.task_id === undefined && !v.sns?.trim()) return;
    const lines = await add.mutateAsync({ task_id: v.task_id, sns: v.sns?.trim() || undefined });
    const n = (r: string) => lines.filter((l) => l.result === r).length;
    Notification.info({
      title: t('prod.group.add'),
      content: t('prod.group.add.result', {
        added: n('added'),
        already: n('already'),
        missing: n('not_found'),
        owned: n('not_in_stock'),
      }),
    });
    setAdding(false);
  };

  return (
    <PageContainer>
      <Card
        title={group.name}
        extra={
          <Popconfirm
            title={t('prod.group.deleteConfirm')}
            onOk={async () => {
              await removeGroup.mutateAsync(id);
              void navigate('/productive/group');
            }}
          >
            <Button status="danger">{t('common.delete')}</Button>
          </Popconfirm>
        }
      >
        <Descriptions
          column={3}
          data={[
            { label: t('prod.group.description'), value: group.description || '-' },
            { label: t('prod.group.devices'), value: group.devices },
            { label: t('prod.task.createdat'), value: formatTime(group.createdat) },
          ]}
        />
      </Card>
      <Card
        title={t('prod.task.devices')}
        extra={
          <Space>
            <Input.Search
              allowClear
              style={{ width: 220 }}
              placeholder={t('prod.device.keyword.placeholder')}
              onSearch={(k) => setParams((p) => ({ ...p, keyword: k.trim() || undefined, current: 1 }))}
            />
            <Button
              type="primary"
              icon={<IconPlus />}
              onClick={() => {
                addForm.resetFields();
                setAdding(true);
              }}
            >
              {t('prod.group.add')}
            </Button>
          </Space>
        }
      >
        <Table<ProductiveGroupDevice>
          rowKey="sn"
          data={devices.data?.data ?? []}
          loading={devices.isFetching && !devices.data}
          noDataElement={<span style={{ color: 'var(--color-text-3)' }}>{t('prod.group.empty')}</span>}
          pagination={listPagination(params, setParams, devices.data?.total, (total) =>
            t('prod.total', { total }),
          )}
          columns={[
            {
              title: t('prod.device.sn'),
              dataIndex: 'sn',
              render: (sn: string, r) => (
                <RowLink to={`/device/detail/${r.product_key}/${encodeURIComponent(sn)}`}>{sn}</RowLink>
              ),
            },
            {
              title: t('prod.device.task'),
              dataIndex: 'task_name',
              render: (v: string | null, r) =>
                v && r.task_id ? <RowLink to={`/product/productive/task/${r.task_id}`}>{v}</RowLink> : '-',
            },
            {
              title: t('prod.device.shipped'),
              dataIndex: 'uid',
              render: (v: number | null) =>
                v === null ? (
                  <Tag size="small">{t('prod.device.shipped.no')}</Tag>
                ) : (
                  <Tag size="small" color="arcoblue">
                    {t('prod.device.shipped.yes')}
                  </Tag>
                ),
            },
            { title: t('prod.group.addedat'), dataIndex: 'addedat', render: (v: string) => formatTime(v) },
            {
              title: t('common.operations'),
              dataIndex: 'op',
              width: 100,
              render: (_: unknown, r) => (
                <Popconfirm
                  title={t('prod.group.removeConfirm')}
                  onOk={() => removeDevice.mutateAsync([r.sn])}
                >
                  <Button type="text" size="small" status="danger">
                    {t('prod.group.remove')}
                  </Button>
                </Popconfirm>
              ),
            },
          ]}
        />
      </Card>
      <Modal
        title={t('prod.group.add')}
        visible={adding}
        onOk={() => void submit().catch(() => undefined)}
        onCancel={() => setAdding(false)}
        confirmLoading={add.isPending}
        okText={t('common.save')}
        cancelText={t('common.cancel')}
      >
        <Form form={addForm} layout="vertical">
          <Form.Item label={t('prod.group.add.task')} field="task_id">
            <Select allowClear showSearch loading={tasks.isFetching} options={tasks.data ?? []} />
          </Form.Item>
          <Form.Item label={t('prod.group.add.sns')} field="sns">
            <Input.TextArea
              autoSize={{ minRows: 4, maxRows: 10 }}
              placeholder={t('prod.group.add.sns.placeholder')}
            />
          </Form.Item>
        </Form>
      </Modal>
    </PageContainer>
  );
}
