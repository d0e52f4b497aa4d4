import {
  DEVICE_HOST_BINDS,
  DEVICE_HOST_PROTOCOLS,
  type DeviceHostBody,
  type DeviceHostItem,
  IDLE_TIMEOUT_MAX_S,
  PACKET_FORMATS,
  REGISTER_BY,
} from '@cellhub/contract/device-hosts';
import {
  Divider,
  Form,
  Grid,
  Input,
  InputNumber,
  Message,
  Modal,
  Radio,
  Select,
  Switch,
} from '@arco-design/web-react';
import { useEffect } from 'react';
import { useLocale } from '../../../lib/i18n';
import { useSaveDeviceHost } from '../api';
import locale from '../locale';

const DEFAULTS: DeviceHostBody = {
  name: '',
  protocol: 'tcp',
  bind: '0.0.0.0',
  port: 20000,
  enabled: true,
  register_by: 'sn',
  register_format: 'text',
  register_pattern: '^(.+)$',
  heartbeat_format: 'text',
  heartbeat_data: '',
  heartbeat_interval: 60,
  idle_timeout: 180,
  remark: '',
};

/** Creates a device host (no `host`) or edits one, in a modal over the list or the detail page. */
export function HostFormModal({
  visible,
  host,
  onClose,
  onSaved,
}: {
  visible: boolean;
  host?: DeviceHostItem;
  onClose: () => void;
  onSaved?: (id: number) => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<DeviceHostBody>();
  const save = useSaveDeviceHost();
  useEffect(() => {
    if (!visible) return;
    form.resetFields();
    form.setFieldsValue(
      host
        ? {
            name: host.name,
            protocol: host.protocol,
            bind: host.bind,
            port: host.port,
            enabled: host.enabled,
            register_by: host.register_by,
            register_format: host.register_format,
            register_pattern: host.register_pattern,
            heartbeat_format: host.heartbeat_format,
            heartbeat_data: host.heartbeat_data,
            heartbeat_interval: host.heartbeat_interval,
            idle_timeout: host.idle_timeout,
            remark: host.remark,
          }
        : DEFAULTS,
    );
  }, [visible, host, form]);

  const submit = async () => {
    const values = await form.validate();
    const saved = await save.mutateAsync({ id: host?.id, body: values });
    Message.success(t('dh.saved'));
    onClose();
    onSaved?.(saved.id);
  };

  const formats = PACKET_FORMATS.map((f) => (
    <Radio key={f} value={f}>
      {t(`dh.form.format.${f}`)}
    </Radio>
  ));

  return (
    <Modal
      title={host ? t('dh.form.editTitle') : t('dh.form.createTitle')}
      visible={visible}
      style={{ width: 680 }}
      // Refusals (port taken, bad pattern) are toasted by the request layer; the modal stays open.
      onOk={() => void submit().catch(() => undefined)}
      onCancel={onClose}
      confirmLoading={save.isPending}
      unmountOnExit
    >
      <Form form={form} layout="vertical" data-testid="dh-form">
        <Grid.Row gutter={16}>
          <Grid.Col span={12}>
            <Form.Item
              label={t('dh.form.name')}
              field="name"
              rules={[{ required: true, message: t('dh.form.name.required') }, { maxLength: 64 }]}
            >
              <Input maxLength={64} data-testid="dh-name" />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={12}>
            <Form.Item label={t('dh.form.protocol')} field="protocol">
              <Radio.Group type="button">
                {DEVICE_HOST_PROTOCOLS.map((p) => (
                  <Radio key={p} value={p}>
                    {p.toUpperCase()}
                  </Radio>
                ))}
              </Radio.Group>
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={12}>
            <Form.Item label={t('dh.form.bind')} field="bind">
              <Select
                options={DEVICE_HOST_BINDS.map((b) => ({
                  value: b,
                  label: t(b === '0.0.0.0' ? 'dh.form.bind.all' : 'dh.form.bind.local'),
                }))}
              />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={12}>
            <Form.Item
              label={t('dh.form.port')}
              field="port"
              extra={t('dh.form.port.help')}
              rules={[{ required: true, message: t('dh.form.port.required') }]}
            >
              <InputNumber min={1} max={65535} precision={0} data-testid="dh-port" />
            </Form.Item>
          </Grid.Col>
        </Grid.Row>
        <Divider orientation="left">{t('dh.form.registration')}</Divider>
        <Grid.Row gutter={16}>
          <Grid.Col span={12}>
            <Form.Item label={t('dh.form.registerBy')} field="register_by">
              <Radio.Group type="button">
                {REGISTER_BY.map((r) => (
                  <Radio key={r} value={r}>
                    {t(`dh.form.registerBy.${r}`)}
                  </Radio>
                ))}
              </Radio.Group>
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={12}>
            <Form.Item label={t('dh.form.format')} field="register_format">
              <Radio.Group type="button">{formats}</Radio.Group>
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={24}>
            <Form.Item
              label={t('dh.form.pattern')}
              field="register_pattern"
              extra={t('dh.form.pattern.help')}
              rules={[{ required: true }, { maxLength: 200 }]}
            >
              <Input maxLength={200} style={{ fontFamily: 'monospace' }} />
            </Form.Item>
          </Grid.Col>
        </Grid.Row>
        <Divider orientation="left">{t('dh.form.heartbeat')}</Divider>
        <Grid.Row gutter={16}>
          <Grid.Col span={8}>
            <Form.Item label={t('dh.form.format')} field="heartbeat_format">
              <Radio.Group type="button">{formats}</Radio.Group>
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={16}>
            <Form.Item
              label={t('dh.form.heartbeatData')}
              field="heartbeat_data"
              extra={t('dh.form.heartbeatData.help')}
              rules={[{ maxLength: 512 }]}
            >
              <Input maxLength={512} style={{ fontFamily: 'monospace' }} />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={8}>
            <Form.Item label={t('dh.form.heartbeatInterval')} field="heartbeat_interval">
              <InputNumber min={0} max={IDLE_TIMEOUT_MAX_S} precision={0} />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={8}>
            <Form.Item
              label={t('dh.form.idleTimeout')}
              field="idle_timeout"
              extra={t('dh.form.idleTimeout.help')}
            >
              <InputNumber min={1} max={IDLE_TIMEOUT_MAX_S} precision={0} />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={8}>
            <Form.Item label={t('dh.form.enabled')} field="enabled" triggerPropName="checked">
              <Switch />
            </Form.Item>
          </Grid.Col>
        </Grid.Row>
        <Form.Item label={t('dh.form.remark')} field="remark" rules={[{ maxLength: 200 }]}>
          <Input.TextArea maxLength={200} autoSize={{ minRows: 2, maxRows: 4 }} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
