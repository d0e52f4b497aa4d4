import type { ProductionDeviceItem } from '@cellhub/contract/production';
import {
  Button,
  Card,
  Descriptions,
  Input,
  Message,
  Modal,
  Popconfirm,
  Space,
  Table,
} from '@arco-design/web-react';
import { IconQrcode } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { formatTime } from '../../../lib/format-time';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { errorText } from '@cellhub/contract/errors';
import { listPagination } from '../../../lib/list-pagination';
import { ApiError } from '../../../lib/request';
import { useDeleteTask, useTask, useTaskAction, useTaskDevices, type ProducedParams } from '../api';
import { LabelSheet } from '../components/label-sheet';
import { producedColumns } from '../components/produced-columns';
import { TaskDialog } from '../components/task-dialog';
import { TaskProgressView } from '../components/task-progress';
import { TaskStateTag } from '../components/task-state-tag';
import locale from '../locale';

/** /product/productive/task/:id: a task, its actions (start, finish, cancel, labels) and its devices. */
export default function TaskDetailPage() {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useTask(isRecordId(id) ? id : undefined);
  const act = useTaskAction();
  const remove = useDeleteTask();
  const [editing, setEditing] = useState(false);
  const [labels, setLabels] = useState(false);
  const [params, setParams] = useState<ProducedParams>({ current: 1, per_page: 10 });
  const devices = useTaskDevices(id, params, load.data !== undefined);

  const state = recordState(load, {
    back: '/product/productive/task',
    backLabel: t('prod.task.back'),
    badId: !isRecordId(id),
  });
  if (state) return <PageContainer>{state}</PageContainer>;
  const task = load.data!;

  const start = async () => {
    try {
      const started = await act.mutateAsync({ id, action: 'start' });
      Message.success(t('prod.task.started', { count: started.progress.created }));
    } catch (err) {
      // 20402 names the clashing sns: shown in full, since the admin must fix the plan.
      if (err instanceof ApiError && err.code === 20402) {
        const d = err.details as { sns?: string[]; count?: number } | undefined;
        Modal.error({
          title: t('prod.task.startAction'),
          content: t('prod.task.clash', { count: d?.count ?? 0, sns: (d?.sns ?? []).join(', ') }),
        });
      } else if (err instanceof ApiError) Message.error(errorText(err.code, lang) ?? err.message);
    }
  };

  const actions = (
    <Space wrap>
      {task.state === 'draft' && (
        <>
          <Popconfirm title={t('prod.task.startConfirm', { count: task.quantity })} onOk={start}>
            <Button type="primary" loading={act.isPending}>
              {t('prod.task.startAction')}
            </Button>
          </Popconfirm>
          <Button onClick={() => setEditing(true)}>{t('common.edit')}</Button>
        </>
      )}
      {task.state !== 'draft' && (
        <Button icon={<IconQrcode />} onClick={() => setLabels(true)}>
          {t('prod.task.labels')}
        </Button>
      )}
      {task.state === 'producing' && (
        <Popconfirm
          title={t('prod.task.finishConfirm')}
          onOk={() => act.mutateAsync({ id, action: 'finish' })}
        >
          <Button type="primary" status="success">
            {t('prod.task.finish')}
          </Button>
        </Popconfirm>
      )}
      {(task.state === 'draft' || task.state === 'producing') && (
        <Popconfirm
          title={t('prod.task.cancelConfirm')}
          onOk={() => act.mutateAsync({ id, action: 'cancel' })}
        >
          <Button status="warning">{t('prod.task.cancel')}</Button>
        </Popconfirm>
      )}
      {task.state === 'draft' && (
        <Popconfirm
          title={t('prod.task.deleteConfirm')}
          onOk={async () => {
            await remove.mutateAsync(id);
            void navigate('/product/productive/task');
          }}
        >
          <Button status="danger">{t('common.delete')}</Button>
        </Popconfirm>
      )}
    </Space>
  );

  return (
    <PageContainer>
      <Card
        title={
          <Space>
            {task.name}
            <TaskStateTag state={task.state} t={t} />
          </Space>
        }
        extra={actions}
      >
        <Descriptions
          column={{ xs: 1, md: 2, xl: 3 }}
          labelStyle={{ width: 120 }}
          data={[
            { label: t('prod.task.product'), value: task.product_name },
            { label: t('prod.task.group'), value: task.hw_group_name },
            { label: t('prod.task.hwVersion'), value: task.hw_version },
            { label: t('prod.task.quantity'), value: task.quantity },
            {
              label: t('prod.task.snRange'),
              value: task.quantity > 1 ? `${task.first_sn} … ${task.last_sn}` : task.first_sn,
            },
            {
              label: t('prod.task.snRule'),
              value: t(task.sn_rule.type === 'rule' ? 'prod.task.snRule.rule' : 'prod.task.snRule.list'),
            },
            { label: t('prod.task.firmware'), value: task.firmware_version ?? t('prod.task.firmware.none') },
            { label: t('prod.task.planned'), value: task.planned_date },
            { label: t('prod.task.startedat'), value: task.startedat ? formatTime(task.startedat) : '-' },
            { label: t('prod.task.note'), value: task.note || '-' },
          ]}
        />
      </Card>
      <Card title={t('prod.task.progress')}>
        <TaskProgressView progress={task.progress} quantity={task.quantity} t={t} />
      </Card>
      <Card
        title={t('prod.task.devices')}
        extra={
          <Input.Search
            allowClear
            style={{ width: 240 }}
            placeholder={t('prod.device.keyword.placeholder')}
            onSearch={(keyword) =>
              setParams((p) => ({ ...p, keyword: keyword.trim() || undefined, current: 1 }))
            }
          />
        }
      >
        <Table<ProductionDeviceItem>
          rowKey="sn"
          columns={producedColumns(t, false)}
          data={devices.data?.data ?? []}
          loading={devices.isFetching && !devices.data}
          noDataElement={<span style={{ color: 'var(--color-text-3)' }}>{t('prod.device.empty')}</span>}
          pagination={listPagination(params, setParams, devices.data?.total, (total) =>
            t('prod.total', { total }),
          )}
        />
      </Card>
      <TaskDialog t={t} task={task} visible={editing} onClose={() => setEditing(false)} />
      <LabelSheet taskId={id} name={task.name} visible={labels} onClose={() => setLabels(false)} t={t} />
    </PageContainer>
  );
}
