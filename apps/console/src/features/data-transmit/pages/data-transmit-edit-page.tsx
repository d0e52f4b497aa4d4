import type { DataTransmitBody, TransmitAddressMode } from '@cellhub/contract/data-transmit';
import {
  AutoComplete,
  Button,
  Card,
  Form,
  Input,
  Message,
  Radio,
  Space,
  Switch,
  Table,
} from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { showFieldErrors } from '../../../components/form-states';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useSaveTransmitRule, useTransmitGroups, useTransmitRule } from '../api';
import TransmitDevicePicker from '../components/transmit-device-picker';
import locale from '../locale';

interface Values {
  name: string;
  group: string;
  status: boolean;
  address_mode: TransmitAddressMode;
  management: string[];
  edge: string[];
}

/** "1, 2,3" as slave addresses; undefined when a part is not an integer 1-247. */
export function parseAddresses(text: string): number[] | undefined {
  const parts = text
    .split(/[,，\s]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n < 1 || n > 247) return undefined;
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

/** /data-transmit/create and /edit/:id: name, group, status, addressing, management and edge devices. */
export default function DataTransmitEditPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const id = params.id ? Number(params.id) : undefined;
  const load = useTransmitRule(id !== undefined && isRecordId(id) ? id : undefined);
  const save = useSaveTransmitRule();
  const groups = useTransmitGroups();
  const [form] = Form.useForm<Values>();
  const [addresses, setAddresses] = useState<Record<string, string>>({});
  const [addressError, setAddressError] = useState<string>();
  const current = load.data;
  const management = Form.useWatch('management', form) ?? [];
  const edge = Form.useWatch('edge', form) ?? [];
  const mode = Form.useWatch('address_mode', form) ?? 'all';

  useEffect(() => {
    if (!current) return;
    form.setFieldsValue({
      name: current.name,
      group: current.group,
      status: current.status === 1,
      address_mode: current.address_mode,
      management: current.devices.filter((d) => d.role === 'management').map((d) => d.sn),
      edge: current.devices.filter((d) => d.role === 'edge').map((d) => d.sn),
    });
    setAddresses(
      Object.fromEntries(
        current.devices.filter((d) => d.role === 'edge').map((d) => [d.sn, d.addresses.join(',')]),
      ),
    );
  }, [current, form]);

  /** The edge list with addresses, or a message saying what is wrong with them. */
  const edgeBody = (values: Values): DataTransmitBody['edge'] | string => {
    const owner = new Map<number, string>();
    const out: NonNullable<DataTransmitBody['edge']> = [];
    for (const sn of values.edge) {
      if (values.address_mode !== 'modbus') {
        out.push({ sn, addresses: parseAddresses(addresses[sn] ?? '') ?? [] });
        continue;
      }
      const list = parseAddresses(addresses[sn] ?? '');
      if (!list) return t('dt.form.addresses.invalid');
      if (list.length === 0) return t('dt.form.addresses.required');
      for (const a of list) {
        if (owner.has(a)) return t('dt.form.addresses.duplicate', { address: a });
        owner.set(a, sn);
      }
      out.push({ sn, addresses: list });
    }
    return out;
  };

  const submit = async () => {
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    const edgeList = edgeBody(values);
    if (typeof edgeList === 'string') {
      setAddressError(edgeList);
      return;
    }
    setAddressError(undefined);
    const body: DataTransmitBody = {
      name: values.name,
      group: values.group ?? '',
      status: values.status ? 1 : 0,
      address_mode: values.address_mode,
      management: values.management,
      edge: edgeList,
    };
    try {
      const saved = await save.mutateAsync({ id, body });
      Message.success(t('dt.saved'));
      void navigate(`/data-transmit/detail/${saved.id}`);
    } catch (e) {
      if (showFieldErrors(form, e)) return;
      if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const state = recordState(load, {
    skip: id === undefined,
    badId: id !== undefined && !isRecordId(id),
    back: '/data-transmit/list',
    backLabel: t('dt.back'),
    notFoundTitle: t('dt.notFound'),
  });
  if (state) return state;

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={id === undefined ? t('dt.form.createTitle') : t('dt.form.editTitle')}
        style={{ maxWidth: 880 }}
      >
        <Form<Values>
          form={form}
          layout="vertical"
          initialValues={{ group: '', status: true, address_mode: 'all', management: [], edge: [] }}
          onSubmit={() => void submit()}
        >
          <Space size={16} align="start" style={{ width: '100%' }} wrap>
            <Form.Item
              label={t('dt.form.name')}
              field="name"
              rules={[{ required: true, message: t('dt.form.name.required') }]}
              style={{ width: 360 }}
            >
              <Input placeholder={t('dt.form.name.placeholder')} maxLength={64} data-testid="dt-name" />
            </Form.Item>
            <Form.Item label={t('dt.form.group')} field="group" style={{ width: 260 }}>
              <AutoComplete
                data={groups.data ?? []}
                placeholder={t('dt.form.group.placeholder')}
                inputProps={{ maxLength: 64 }}
                data-testid="dt-group-input"
              />
            </Form.Item>
            <Form.Item label={t('dt.form.status')} field="status" triggerPropName="checked">
              <Switch data-testid="dt-enabled" />
            </Form.Item>
          </Space>
          <Form.Item
            label={t('dt.form.management')}
            field="management"
            extra={t('dt.form.management.help')}
            rules={[
              { required: true, type: 'array', minLength: 1, message: t('dt.form.management.required') },
            ]}
          >
            <TransmitDevicePicker exclude={edge} ruleId={id} testId="dt-management" />
          </Form.Item>
          <Form.Item
            label={t('dt.form.edge')}
            field="edge"
            extra={t('dt.form.edge.help')}
            rules={[{ required: true, type: 'array', minLength: 1, message: t('dt.form.edge.required') }]}
          >
            <TransmitDevicePicker exclude={management} ruleId={id} testId="dt-edge" />
          </Form.Item>
          <Form.Item label={t('dt.form.mode')} field="address_mode" extra={t('dt.form.mode.help')}>
            <Radio.Group data-testid="dt-mode">
              <Radio value="all">{t('dt.form.mode.all')}</Radio>
              <Radio value="modbus">{t('dt.form.mode.modbus')}</Radio>
            </Radio.Group>
          </Form.Item>
          {mode === 'modbus' && edge.length > 0 && (
            <Form.Item
              label={t('dt.form.addresses')}
              validateStatus={addressError ? 'error' : undefined}
              help={addressError}
            >
              <Table
                size="small"
                rowKey="sn"
                pagination={false}
                border={{ wrapper: true, cell: false }}
                data={edge.map((sn) => ({ sn }))}
                columns={[
                  { title: t('dt.dcol.device'), dataIndex: 'sn', width: 260 },
                  {
                    title: t('dt.form.addresses'),
                    dataIndex: 'addresses',
                    render: (_: unknown, row: { sn: string }) => (
                      <Input
                        size="small"
                        value={addresses[row.sn] ?? ''}
                        placeholder={t('dt.form.addresses.placeholder')}
                        maxLength={200}
                        onChange={(v) => setAddresses((a) => ({ ...a, [row.sn]: v }))}
                        data-testid={`dt-addr-${row.sn}`}
                      />
                    ),
                  },
                ]}
              />
            </Form.Item>
          )}
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="dt-save">
              {t('common.save')}
            </Button>
            <Button onClick={() => void navigate('/data-transmit/list')}>{t('common.back')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
