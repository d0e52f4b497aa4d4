import {
  SERIAL_PORTS,
  SLAVE_ADDRESS_MAX,
  SLAVE_ADDRESS_MIN,
  type SlaveBody,
  type SlaveItem,
  type TemplateDetail,
  type TemplateDeviceItem,
  type VariableImportResult,
  type VariableItem,
} from '@cellhub/contract/data-templates';
import {
  Button,
  Card,
  Descriptions,
  Empty,
  Form,
  Input,
  InputNumber,
  Message,
  Modal,
  Popconfirm,
  Select,
  Space,
  Table,
  Tabs,
  Tag,
  Typography,
  Upload,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconDownload, IconPlus, IconUpload } from '@arco-design/web-react/icon';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { ConfirmAction, EditDeleteActions, RowActions } from '../../../components/row-actions';
import { formatTime } from '../../../lib/format-time';
import { useLocale } from '../../../lib/i18n';
import {
  exportVariables,
  useApplyTemplate,
  useDeleteSlave,
  useDeleteVariable,
  useDevicePick,
  useImportVariables,
  useProductDefault,
  useSaveSlave,
  useTemplate,
  useTemplateDevices,
  useUnapplyDevice,
} from '../api';
import { ACCESS_LABEL_KEYS } from '../components/labels';
import { TemplateFormModal } from '../components/template-form-modal';
import { VariableFormModal } from '../components/variable-form-modal';
import locale from '../locale';

const LIST = '/scene/data-template/list';

/** /scene/data-template/detail/:id — a template: its slaves and variables, the devices using it. */
export default function DataTemplateDetailPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const load = useTemplate(isRecordId(id) ? id : undefined);
  const [editing, setEditing] = useState(false);
  const [slaveTab, setSlaveTab] = useState<string>();
  const [slaveForm, setSlaveForm] = useState<SlaveItem | 'new' | undefined>();
  const removeSlave = useDeleteSlave(id);

  const state = recordState(load, {
    badId: !isRecordId(id),
    back: LIST,
    backLabel: t('dt.back'),
    notFoundTitle: t('dt.notFound'),
  });
  if (state) return state;
  const tpl = load.data!;
  const active = tpl.slaves.find((s) => String(s.id) === slaveTab) ?? tpl.slaves[0];

  return (
    <PageContainer>
      <Space direction="vertical" size={16} style={{ width: '100%' }}>
        <Card
          bordered={false}
          title={tpl.name}
          extra={
            <Space>
              <Button onClick={() => setEditing(true)}>{t('common.edit')}</Button>
              <Button onClick={() => void navigate(LIST)}>{t('common.back')}</Button>
            </Space>
          }
        >
          <Descriptions
            column={3}
            data={[
              { label: t('dt.col.type'), value: t(`dt.type.${tpl.type}`) },
              {
                label: t('dt.col.mode'),
                value: (
                  <Tag size="small" color={tpl.collect_mode === 'dtu' ? 'arcoblue' : 'purple'}>
                    {t(`dt.mode.${tpl.collect_mode}`)}
                  </Tag>
                ),
              },
              { label: t('dt.col.owner'), value: tpl.owner || '-' },
              { label: t('dt.col.variables'), value: tpl.variable_count },
              { label: t('dt.col.devices'), value: tpl.device_count },
              { label: t('dt.col.updated'), value: formatTime(tpl.updatedat) },
              { label: t('dt.col.remark'), value: tpl.remark || '-' },
            ]}
          />
        </Card>

        <Card
          bordered={false}
          title={t('dt.slaves')}
          extra={
            <Button
              type="primary"
              icon={<IconPlus />}
              onClick={() => setSlaveForm('new')}
              data-testid="dt-add-slave"
            >
              {t('dt.slave.add')}
            </Button>
          }
        >
          {tpl.slaves.length === 0 ? (
            <Empty description={t('dt.slave.empty')} />
          ) : (
            <Tabs
              activeTab={active ? String(active.id) : undefined}
              onChange={setSlaveTab}
              type="card-gutter"
            >
              {tpl.slaves.map((s) => (
                <Tabs.TabPane key={String(s.id)} title={`${s.name} (${s.address})`}>
                  <SlavePanel
                    tpl={tpl}
                    slave={s}
                    onEdit={() => setSlaveForm(s)}
                    onDelete={() => removeSlave.mutateAsync(s.id)}
                  />
                </Tabs.TabPane>
              ))}
            </Tabs>
          )}
        </Card>

        <DevicesCard tpl={tpl} />
        <ProductDefaultCard tpl={tpl} />
      </Space>
      <TemplateFormModal visible={editing} template={tpl} onClose={() => setEditing(false)} />
      <SlaveFormModal
        templateId={tpl.id}
        slave={slaveForm === 'new' ? undefined : slaveForm}
        visible={slaveForm !== undefined}
        onClose={() => setSlaveForm(undefined)}
      />
    </PageContainer>
  );
}

function SlavePanel({
  tpl,
  slave,
  onEdit,
  onDelete,
}: {
  tpl: TemplateDetail;
  slave: SlaveItem;
  onEdit: () => void;
  onDelete: () => Promise<unknown>;
}) {
  const t = useLocale(locale);
  const [form, setForm] = useState<VariableItem | 'new' | undefined>();
  const [result, setResult] = useState<VariableImportResult>();
  const remove = useDeleteVariable(tpl.id);
  const imp = useImportVariables(tpl.id);

  const columns: TableColumnProps<VariableItem>[] = [
    { title: t('dt.var.name'), dataIndex: 'name', width: 140 },
    {
      title: t('dt.var.tag'),
      dataIndex: 'tag',
      width: 150,
      render: (v: string) => <code style={{ whiteSpace: 'nowrap' }}>{v}</code>,
    },
    {
      title: t('dt.var.registerType'),
      dataIndex: 'register_type',
      width: 120,
      render: (v: string) => t(`dt.reg.${v}`),
    },
    { title: t('dt.var.registerAddress'), dataIndex: 'register_address', width: 100 },
    { title: t('dt.var.dataFormat'), dataIndex: 'data_format', width: 100 },
    { title: t('dt.var.byteOrder'), dataIndex: 'byte_order', width: 90 },
    { title: t('dt.var.unit'), dataIndex: 'unit', width: 80, render: (v: string) => v || '-' },
    {
      title: t('dt.var.access'),
      dataIndex: 'access',
      width: 90,
      render: (v: VariableItem['access']) => t(ACCESS_LABEL_KEYS[v]),
    },
    { title: t('dt.var.capture'), dataIndex: 'capture_formula', width: 120, render: (v: string) => v || '-' },
    { title: t('dt.var.functionCode'), dataIndex: 'function_code', width: 80 },
    { title: t('dt.var.cycle'), dataIndex: 'sampling_cycle_s', width: 110 },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 140,
      fixed: 'right',
      render: (_: unknown, row) => (
        <EditDeleteActions
          edit={() => setForm(row)}
          deleted={t('common.deleteSuccess')}
          onDelete={() => remove.mutateAsync(row.id)}
        />
      ),
    },
  ];

  return (
    <Space direction="vertical" size={12} style={{ width: '100%' }}>
      <Space wrap style={{ justifyContent: 'space-between', width: '100%' }}>
        <Typography.Text type="secondary">
          {t('dt.slave.address')}: {slave.address} · {t('dt.slave.port')}: {t(`dt.port.${slave.serial_port}`)}
        </Typography.Text>
        <Space>
          <Button
            type="primary"
            icon={<IconPlus />}
            onClick={() => setForm('new')}
            data-testid="dt-add-variable"
          >
            {t('dt.var.add')}
          </Button>
          <Upload
            accept=".xlsx"
            showUploadList={false}
            autoUpload={false}
            onChange={(files) => {
              const file = files[files.length - 1]?.originFile;
              if (file) void imp.mutateAsync({ slaveId: slave.id, file }).then(setResult);
            }}
          >
            <Button icon={<IconUpload />} loading={imp.isPending}>
              {t('dt.import')}
            </Button>
          </Upload>
          <Button
            icon={<IconDownload />}
            onClick={() => void exportVariables(tpl.id, slave.id, `${tpl.name}-${slave.name}`)}
          >
            {t('dt.export')}
          </Button>
          <Button onClick={onEdit}>{t('dt.slave.edit')}</Button>
          <Popconfirm title={t('dt.slave.deleteConfirm')} onOk={() => onDelete()}>
            <Button status="danger">{t('common.delete')}</Button>
          </Popconfirm>
        </Space>
      </Space>
      <Table
        rowKey="id"
        data={slave.variables}
        columns={columns}
        pagination={false}
        scroll={{ x: 1400 }}
        noDataElement={<Empty description={t('dt.var.empty')} />}
      />
      <VariableFormModal
        templateId={tpl.id}
        slaveId={slave.id}
        variable={form === 'new' ? undefined : form}
        visible={form !== undefined}
        onClose={() => setForm(undefined)}
      />
      <Modal
        title={t('dt.import.title')}
        visible={result !== undefined}
        onOk={() => setResult(undefined)}
        onCancel={() => setResult(undefined)}
        hideCancel
      >
        {result && (
          <Space direction="vertical" style={{ width: '100%' }}>
            <Typography.Text>
              {t('dt.import.summary', {
                created: result.created,
                updated: result.updated,
                failed: result.failed,
              })}
            </Typography.Text>
            <Table
              rowKey="row"
              size="small"
              pagination={false}
              data={result.rows}
              columns={[
                { title: t('dt.import.row'), dataIndex: 'row', width: 60 },
                { title: t('dt.var.tag'), dataIndex: 'tag', width: 110 },
                {
                  title: t('dt.import.result'),
                  dataIndex: 'ok',
                  render: (_: unknown, r) =>
                    r.ok ? (
                      <Tag color="green">{t(`dt.import.${r.action ?? 'created'}`)}</Tag>
                    ) : (
                      <Typography.Text type="error">
                        {r.code} {r.message}
                      </Typography.Text>
                    ),
                },
              ]}
            />
          </Space>
        )}
      </Modal>
    </Space>
  );
}

function SlaveFormModal({
  templateId,
  slave,
  visible,
  onClose,
}: {
  templateId: number;
  slave?: SlaveItem;
  visible: boolean;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<SlaveBody>();
  const save = useSaveSlave(templateId);
  useEffect(() => {
    if (!visible) return;
    form.resetFields();
    form.setFieldsValue(
      slave
        ? { name: slave.name, address: slave.address, serial_port: slave.serial_port }
        : { address: 1, serial_port: 'rs485' },
    );
  }, [visible, slave, form]);
  return (
    <Modal
      title={slave ? t('dt.slave.edit') : t('dt.slave.add')}
      visible={visible}
      onCancel={onClose}
      confirmLoading={save.isPending}
      unmountOnExit
      onOk={() =>
        void form
          .validate()
          .then((body) => save.mutateAsync({ slaveId: slave?.id, body }))
          .then(() => {
            Message.success(t('dt.saved'));
            onClose();
          })
          .catch(() => undefined)
      }
    >
      <Form form={form} layout="vertical" data-testid="dt-slave-form">
        <Form.Item
          label={t('dt.slave.name')}
          field="name"
          rules={[{ required: true, message: t('dt.var.required') }, { maxLength: 64 }]}
        >
          <Input maxLength={64} />
        </Form.Item>
        <Form.Item
          label={t('dt.slave.address')}
          field="address"
          rules={[
            { required: true, message: t('dt.var.required') },
            {
              type: 'number',
              min: SLAVE_ADDRESS_MIN,
              max: SLAVE_ADDRESS_MAX,
              message: t('dt.slave.address.rule'),
            },
          ]}
        >
          <InputNumber precision={0} />
        </Form.Item>
        <Form.Item label={t('dt.slave.port')} field="serial_port">
          <Select options={SERIAL_PORTS.map((p) => ({ value: p, label: t(`dt.port.${p}`) }))} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

function DevicesCard({ tpl }: { tpl: TemplateDetail }) {
  const t = useLocale(locale);
  const [page, setPage] = useState({ current: 1, per_page: 10 });
  const devices = useTemplateDevices(tpl.id, page);
  const unapply = useUnapplyDevice();
  const [open, setOpen] = useState(false);
  const columns: TableColumnProps<TemplateDeviceItem>[] = [
    { title: t('dt.devices.sn'), dataIndex: 'sn' },
    { title: t('dt.devices.name'), dataIndex: 'name', render: (v: string) => v || '-' },
    { title: t('dt.devices.appliedat'), dataIndex: 'appliedat', render: (v: string) => formatTime(v) },
    {
      title: t('common.operations'),
      dataIndex: 'operations',
      width: 120,
      render: (_: unknown, row) => (
        <RowActions>
          <ConfirmAction
            title={t('dt.unapply.confirm')}
            status="danger"
            onConfirm={() => unapply.mutateAsync(row.sn)}
            done={t('dt.saved')}
          >
            {t('dt.unapply')}
          </ConfirmAction>
        </RowActions>
      ),
    },
  ];
  return (
    <Card
      bordered={false}
      title={t('dt.devices')}
      extra={
        <Button type="primary" onClick={() => setOpen(true)} data-testid="dt-apply">
          {t('dt.apply')}
        </Button>
      }
    >
      <Table
        rowKey="sn"
        data={devices.data?.data ?? []}
        loading={devices.isFetching && !devices.data}
        columns={columns}
        noDataElement={<Empty description={t('dt.devices.empty')} />}
        pagination={{
          current: page.current,
          pageSize: page.per_page,
          total: devices.data?.total ?? 0,
          onChange: (current, per_page) => setPage({ current, per_page }),
          hideOnSinglePage: true,
        }}
      />
      <ApplyModal templateId={tpl.id} visible={open} onClose={() => setOpen(false)} />
    </Card>
  );
}

function ApplyModal({
  templateId,
  visible,
  onClose,
}: {
  templateId: number;
  visible: boolean;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [keyword, setKeyword] = useState('');
  const [picked, setPicked] = useState<string[]>([]);
  const pick = useDevicePick(keyword, visible);
  const apply = useApplyTemplate(templateId);
  useEffect(() => {
    if (visible) setPicked([]);
  }, [visible]);
  return (
    <Modal
      title={t('dt.apply.title')}
      visible={visible}
      onCancel={onClose}
      okText={t('dt.apply.submit')}
      confirmLoading={apply.isPending}
      style={{ width: 640 }}
      unmountOnExit
      onOk={async () => {
        if (picked.length === 0) {
          Message.warning(t('dt.apply.none'));
          return;
        }
        const results = await apply.mutateAsync(picked);
        const failed = results.filter((r) => !r.ok);
        Message[failed.length ? 'warning' : 'success'](
          t('dt.apply.done', { ok: results.length - failed.length, failed: failed.length }),
        );
        if (failed.length > 0) Message.error(failed.map((r) => `${r.sn}: ${r.message ?? r.code}`).join('; '));
        onClose();
      }}
    >
      <Space direction="vertical" style={{ width: '100%' }}>
        <Input.Search
          allowClear
          placeholder={t('dt.apply.search')}
          onSearch={setKeyword}
          data-testid="dt-apply-search"
        />
        <Table
          rowKey="sn"
          size="small"
          loading={pick.isFetching}
          data={pick.data?.data ?? []}
          pagination={false}
          scroll={{ y: 320 }}
          rowSelection={{
            type: 'checkbox',
            selectedRowKeys: picked,
            onChange: (keys) => setPicked(keys as string[]),
          }}
          columns={[
            { title: t('dt.devices.sn'), dataIndex: 'sn' },
            { title: t('dt.devices.name'), dataIndex: 'name', render: (v: string) => v || '-' },
            { title: t('dt.product.col'), dataIndex: 'product_name' },
          ]}
        />
      </Space>
    </Modal>
  );
}

function ProductDefaultCard({ tpl }: { tpl: TemplateDetail }) {
  const t = useLocale(locale);
  const [productKey, setProductKey] = useState<string>();
  const setDefault = useProductDefault();
  return (
    <Card bordered={false} title={t('dt.product')}>
      <Space direction="vertical" size={12} style={{ width: '100%' }}>
        <Typography.Text type="secondary">{t('dt.product.help')}</Typography.Text>
        {tpl.products.length > 0 && (
          <Space wrap>
            {tpl.products.map((p) => (
              <Tag
                key={p.product_key}
                closable
                color="arcoblue"
                onClose={() => setDefault.mutateAsync({ productKey: p.product_key, templateId: null })}
              >
                {p.name} ({p.product_key})
              </Tag>
            ))}
          </Space>
        )}
        <Space>
          <ProductSelect
            value={productKey}
            onChange={(v) => setProductKey(v as string | undefined)}
            allowClear
            labels="name"
            placeholder={t('dt.product.placeholder')}
            style={{ width: 260 }}
          />
          <Button
            disabled={!productKey}
            loading={setDefault.isPending}
            onClick={() =>
              void setDefault
                .mutateAsync({ productKey: productKey!, templateId: tpl.id })
                .then(() => Message.success(t('dt.saved')))
            }
          >
            {t('dt.product.set')}
          </Button>
        </Space>
      </Space>
    </Card>
  );
}
