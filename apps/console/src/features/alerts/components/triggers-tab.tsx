import { ALERT_TRIGGER_TYPES, type AlertTriggerItem } from '@cellhub/contract/alerts';
import {
  Button,
  Divider,
  Form,
  Grid,
  Input,
  Select,
  Space,
  Switch,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconPlus } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ListSearchBar } from '../../../components/list-search-bar';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { listPagination } from '../../../lib/list-pagination';
import { conditionText, STATE_COLOR, triggerPropertyName } from '../alert-format';
import { type TriggerListParams, useDeleteTrigger, useSetTriggerEnable, useTriggerList } from '../api';
import { EditDeleteActions } from '../../../components/row-actions';
import locale from '../locale';
import styles from '../pages/alert.module.css';

interface Filter {
  keyword?: string;
  type?: number;
  enable?: number;
}

export function TriggersTab() {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const navigate = useNavigate();
  const [form] = Form.useForm<Filter>();
  const [params, setParams] = useState<TriggerListParams>({ current: 1, per_page: 10 });
  const { data, isFetching } = useTriggerList(params);
  const remove = useDeleteTrigger();
  const setEnable = useSetTriggerEnable();

  const search = () => {
    const { keyword, type, enable } = form.getFieldsValue();
    setParams((p) => ({ ...p, current: 1, keyword: keyword?.trim() || undefined, type, enable }));
  };

  const columns: TableColumnProps<AlertTriggerItem>[] = [
    {
      title: t('alert.trigger.col.name'),
      dataIndex: 'name',
      render: (v: string) => <span className={styles.nowrap}>{v}</span>,
    },
    {
      title: t('alert.trigger.col.device'),
      dataIndex: 'sn',
      render: (sn: string | null, row) => (
        <div className={styles.cellStack}>
          <span className={styles.mono}>{sn ?? '-'}</span>
          {row.device_name ? <span className={styles.muted}>{row.device_name}</span> : null}
        </div>
      ),
    },
    {
      title: t('alert.trigger.col.condition'),
      dataIndex: 'type',
      render: (_: unknown, row) => (
        <span className={styles.nowrap}>
          {conditionText(t, {
            type: row.type,
            a: row.a,
            b: row.b,
            property: triggerPropertyName(row, lang),
          })}
        </span>
      ),
    },
    {
      title: t('alert.trigger.col.methods'),
      dataIndex: 'methods',
      render: (methods: AlertTriggerItem['methods']) =>
        methods.length === 0 ? (
          <span className={styles.muted}>{t('alert.trigger.noMethods')}</span>
        ) : (
          <Space size={4} wrap>
            {methods.map((m) => (
              <Tag key={m} size="small">
                {t(`alert.method.${m}`)}
              </Tag>
            ))}
          </Space>
        ),
    },
    {
      title: t('alert.trigger.col.contacts'),
      dataIndex: 'contacts',
      render: (contacts: AlertTriggerItem['contacts']) =>
        contacts.length === 0 ? (
          <span className={styles.muted}>-</span>
        ) : (
          contacts.map((c) => c.name).join(', ')
        ),
    },
    {
      title: t('alert.trigger.col.state'),
      dataIndex: 'state',
      render: (state: AlertTriggerItem['state'], row) =>
        row.enable === 1 ? (
          <Tag color={STATE_COLOR[state]} data-testid="alert-trigger-state">
            {t(`alert.state.${state}`)}
          </Tag>
        ) : (
          <Tag>{t('alert.disabled')}</Tag>
        ),
    },
    {
      title: t('alert.trigger.col.enable'),
      dataIndex: 'enable',
      render: (enable: number, row) => (
        <Switch
          size="small"
          checked={enable === 1}
          loading={setEnable.isPending && setEnable.variables?.id === row.id}
          onChange={(on) => setEnable.mutate({ id: row.id, enable: on ? 1 : 0 })}
        />
      ),
    },
    {
      title: t('alert.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <EditDeleteActions
          confirm={t('alert.delete.confirm')}
          deleted={t('alert.deleted')}
          edit={`/alert/device-trigger/edit/${row.id}`}
          onDelete={() => remove.mutateAsync(row.id)}
        />
      ),
    },
  ];

  return (
    <>
      <ListSearchBar
        form={form}
        labelCol={{ span: 6 }}
        wrapperCol={{ span: 18 }}
        labelAlign="left"
        onSearch={search}
      >
        <Grid.Row gutter={24}>
          <Grid.Col span={10}>
            <Form.Item label={t('alert.keyword')} field="keyword">
              <Input placeholder={t('alert.trigger.keyword.placeholder')} allowClear maxLength={64} />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={8}>
            <Form.Item label={t('alert.trigger.type')} field="type">
              <Select allowClear placeholder={t('alert.all')}>
                {ALERT_TRIGGER_TYPES.map((type) => (
                  <Select.Option key={type} value={type}>
                    {t(`alert.type.${type}`)}
                  </Select.Option>
                ))}
              </Select>
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={6}>
            <Form.Item label={t('alert.enable')} field="enable">
              <Select allowClear placeholder={t('alert.all')}>
                <Select.Option value={1}>{t('alert.enabled')}</Select.Option>
                <Select.Option value={0}>{t('alert.disabled')}</Select.Option>
              </Select>
            </Form.Item>
          </Grid.Col>
        </Grid.Row>
      </ListSearchBar>
      <Divider style={{ marginTop: 0 }} />
      <div className={styles.toolbar}>
        <Button
          type="primary"
          icon={<IconPlus />}
          onClick={() => void navigate('/alert/device-trigger/create')}
        >
          {t('alert.trigger.create')}
        </Button>
      </div>
      <Table<AlertTriggerItem>
        rowKey="id"
        loading={isFetching}
        columns={columns}
        data={data?.data ?? []}
        pagination={listPagination(params, setParams, data?.total, (total) => t('alert.total', { total }))}
      />
    </>
  );
}
