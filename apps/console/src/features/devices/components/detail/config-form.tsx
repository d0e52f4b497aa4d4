import {
  Button,
  Divider,
  Form,
  Grid,
  Input,
  InputNumber,
  Select,
  Space,
  Switch,
  Tabs,
} from '@arco-design/web-react';
import { type DeviceConfig, MQTT_TOPIC_SLOTS, SOCKET_SLOTS } from '@cellhub/contract/device-config';
import { useMemo, useState, type ReactNode } from 'react';
import { useLocale } from '../../../../lib/i18n';
import { ApiError } from '../../../../lib/request';
import { toast } from '../../../../lib/toast';
import locale from '../../locale/detail-index';
import {
  type ConfigFormValues,
  configIssues,
  fieldIssue,
  fromFormValues,
  parseAdvanced,
  toFormValues,
} from './config-model';
import styles from './detail.module.css';
import { SocketHostPicker } from './socket-host-picker';

const { Row, Col } = Grid;
const GROUPS = ['global', 'mqtt', 'serial', 'socket', 'aliyun'] as const;
type Group = (typeof GROUPS)[number];

const QOS = [0, 1, 2].map((q) => ({ label: `QoS ${q}`, value: q }));

/** Which tab a field lives on, to open the one holding the first error. */
const groupOf = (field: string): Group => {
  const head = field.split(/[.[]/)[0];
  return (GROUPS as readonly string[]).includes(head ?? '') ? (head as Group) : 'global';
};

export interface ConfigFormProps {
  /** The configuration the form starts from (expected, or reported when nothing is expected yet). */
  base: DeviceConfig;
  saving: boolean;
  onSave: (config: DeviceConfig) => Promise<void>;
}

/** Every group of PROTOCOL.md's configuration, checked field by field with the contract's schema. */
export default function ConfigForm({ base, saving, onSave }: ConfigFormProps) {
  const t = useLocale(locale);
  const [form] = Form.useForm<ConfigFormValues>();
  const initial = useMemo(() => toFormValues(base), [base]);
  const [tab, setTab] = useState<Group>('global');

  const rules = (field: string) => [
    {
      validator: (value: unknown, cb: (error?: ReactNode) => void) => {
        const issue = fieldIssue(field, value);
        cb(issue ? t(issue.key, issue.vars) : undefined);
      },
    },
  ];

  /** One field; `span` is out of 24. */
  const item = (field: string, label: string, control: ReactNode, span = 8, bool = false) => (
    <Col span={span} key={field}>
      <Form.Item
        field={field}
        label={label}
        rules={rules(field)}
        {...(bool ? { triggerPropName: 'checked' } : {})}
      >
        {control}
      </Form.Item>
    </Col>
  );
  const text = (placeholder?: string) => <Input allowClear placeholder={placeholder} />;
  const secret = () => <Input.Password allowClear />;
  const num = () => <InputNumber style={{ width: '100%' }} />;
  const select = (options: { label: string; value: string | number }[]) => (
    <Select allowClear options={options} />
  );
  const sw = () => <Switch />;

  const showErrors = (issues: Record<string, { key: string; vars?: Record<string, string | number> }>) => {
    const fields = Object.keys(issues);
    if (!fields.length) return false;
    form.setFields(
      Object.fromEntries(fields.map((f) => [f, { error: { message: t(issues[f]!.key, issues[f]!.vars) } }])),
    );
    setTab(groupOf(fields[0]!));
    toast('error', t('deviceDetail.config.invalid'));
    return true;
  };

  const submit = async () => {
    try {
      await form.validate();
    } catch (e) {
      const errors = (e as { errors?: Record<string, unknown> }).errors ?? {};
      const first = Object.keys(errors)[0];
      if (first) setTab(groupOf(first));
      toast('error', t('deviceDetail.config.invalid'));
      return;
    }
    const values = form.getFieldsValue() as ConfigFormValues;
    const config = fromFormValues(values, base);
    if (showErrors(configIssues(config))) return;
    try {
      await onSave(config);
    } catch (e) {
      if (!(e instanceof ApiError) || e.httpStatus === 403) return;
      const details = Array.isArray(e.details) ? (e.details as { field?: string; message?: string }[]) : [];
      const byField = Object.fromEntries(
        details
          .filter((x) => typeof x.field === 'string')
          .map((x) => [x.field!.replace(/^config\./, ''), { key: x.message ?? e.message }]),
      );
      if (!showErrors(byField)) toast('error', e.message);
    }
  };

  const topicRows = (kind: 'subscribe' | 'publish') =>
    Array.from({ length: MQTT_TOPIC_SLOTS }, (_, i) => (
      <Row gutter={12} key={`${kind}${i}`}>
        {item(`mqtt.${kind}[${i}].topic`, t('deviceDetail.config.mqtt.topic', { n: i + 1 }), text(), 18)}
        {item(`mqtt.${kind}[${i}].qos`, t('deviceDetail.config.mqtt.qos'), select(QOS), 6)}
      </Row>
    ));

  const serialPort = (port: 'rs232' | 'rs485') => (
    <>
      <Divider orientation="left">{port.toUpperCase()}</Divider>
      <Row gutter={16}>
        {item(`serial.${port}.baud`, t('deviceDetail.config.serial.baud'), num())}
        {item(
          `serial.${port}.data_bits`,
          t('deviceDetail.config.serial.dataBits'),
          select([5, 6, 7, 8].map((b) => ({ label: String(b), value: b }))),
          4,
        )}
        {item(
          `serial.${port}.stop_bits`,
          t('deviceDetail.config.serial.stopBits'),
          select([1, 1.5, 2].map((b) => ({ label: String(b), value: b }))),
          4,
        )}
        {item(
          `serial.${port}.parity`,
          t('deviceDetail.config.serial.parity'),
          select(
            ['none', 'odd', 'even', 'mark', 'space'].map((p) => ({
              label: t(`deviceDetail.config.parity.${p}`),
              value: p,
            })),
          ),
          4,
        )}
        {item(
          `serial.${port}.flow_control`,
          t('deviceDetail.config.serial.flow'),
          select(
            ['none', 'rtscts', 'xonxoff'].map((p) => ({
              label: t(`deviceDetail.config.flow.${p}`),
              value: p,
            })),
          ),
          4,
        )}
      </Row>
    </>
  );

  const socket = (i: number) => (
    <div key={`socket${i}`} data-testid={`config-socket-${i + 1}`}>
      <Divider orientation="left">{t('deviceDetail.config.socket.title', { n: i + 1 })}</Divider>
      <SocketHostPicker index={i} form={form} />
      <Row gutter={16}>
        {item(`socket[${i}].enable`, t('deviceDetail.config.socket.enable'), sw(), 4, true)}
        {item(
          `socket[${i}].protocol`,
          t('deviceDetail.config.socket.protocol'),
          select([
            { label: 'TCP', value: 'tcp' },
            { label: 'UDP', value: 'udp' },
          ]),
          4,
        )}
        {item(`socket[${i}].server`, t('deviceDetail.config.socket.server'), text(), 10)}
        {item(`socket[${i}].port`, t('deviceDetail.config.socket.port'), num(), 6)}
        {item(`socket[${i}].backup_server`, t('deviceDetail.config.socket.backupServer'), text(), 10)}
        {item(`socket[${i}].backup_port`, t('deviceDetail.config.socket.backupPort'), num(), 6)}
      </Row>
      <Row gutter={16}>
        {item(`socket[${i}].heartbeat.enable`, t('deviceDetail.config.socket.heartbeat'), sw(), 4, true)}
        {item(`socket[${i}].heartbeat.interval`, t('deviceDetail.config.socket.heartbeatInterval'), num(), 6)}
        {item(`socket[${i}].heartbeat.data`, t('deviceDetail.config.socket.heartbeatData'), text(), 14)}
        {item(
          `socket[${i}].registration.enable`,
          t('deviceDetail.config.socket.registration'),
          sw(),
          4,
          true,
        )}
        {item(`socket[${i}].registration.data`, t('deviceDetail.config.socket.registrationData'), text(), 20)}
      </Row>
    </div>
  );

  return (
    <Form
      form={form}
      layout="vertical"
      initialValues={initial}
      onSubmit={() => void submit()}
      data-testid="config-form"
      scrollToFirstError
    >
      <Tabs activeTab={tab} onChange={(k) => setTab(k as Group)} lazyload={false}>
        <Tabs.TabPane key="global" title={t('deviceDetail.config.group.global')}>
          <Divider orientation="left">{t('deviceDetail.config.apn')}</Divider>
          <Row gutter={16}>
            {item('global.apn.name', t('deviceDetail.config.apn.name'), text('cmnet'), 6)}
            {item('global.apn.username', t('deviceDetail.config.apn.username'), text(), 6)}
            {item('global.apn.password', t('deviceDetail.config.apn.password'), secret(), 6)}
            {item(
              'global.apn.auth',
              t('deviceDetail.config.apn.auth'),
              select(['none', 'pap', 'chap', 'auto'].map((a) => ({ label: a.toUpperCase(), value: a }))),
              6,
            )}
          </Row>
          <Divider orientation="left">{t('deviceDetail.config.ntp')}</Divider>
          <Row gutter={16}>
            {item('global.ntp.enable', t('deviceDetail.config.ntp.enable'), sw(), 4, true)}
            {item('global.ntp.server', t('deviceDetail.config.ntp.server'), text('ntp.aliyun.com'), 12)}
            {item('global.ntp.interval', t('deviceDetail.config.ntp.interval'), num(), 8)}
          </Row>
          <Row>
            <Col span={24}>
              <Form.Item
                field="_advanced"
                label={t('deviceDetail.config.advanced')}
                rules={[
                  {
                    validator: (v: string | undefined, cb) =>
                      cb(parseAdvanced(v).ok ? undefined : t('deviceDetail.config.err.json')),
                  },
                ]}
              >
                <Input.TextArea
                  className={styles.mono}
                  autoSize={{ minRows: 3, maxRows: 12 }}
                  placeholder="{}"
                />
              </Form.Item>
            </Col>
          </Row>
        </Tabs.TabPane>

        <Tabs.TabPane key="mqtt" title={t('deviceDetail.config.group.mqtt')}>
          <Divider orientation="left">{t('deviceDetail.config.mqtt.connection')}</Divider>
          <Row gutter={16}>
            {item('mqtt.server', t('deviceDetail.config.mqtt.server'), text(), 10)}
            {item('mqtt.port', t('deviceDetail.config.mqtt.port'), num(), 4)}
            {item('mqtt.client_id', t('deviceDetail.config.mqtt.clientId'), text(), 10)}
            {item('mqtt.username', t('deviceDetail.config.mqtt.username'), text(), 8)}
            {item('mqtt.password', t('deviceDetail.config.mqtt.password'), secret(), 8)}
            {item('mqtt.keepalive', t('deviceDetail.config.mqtt.keepalive'), num(), 8)}
          </Row>
          <Row gutter={24}>
            <Col span={12}>
              <Divider orientation="left">{t('deviceDetail.config.mqtt.subscribe')}</Divider>
              {topicRows('subscribe')}
            </Col>
            <Col span={12}>
              <Divider orientation="left">{t('deviceDetail.config.mqtt.publish')}</Divider>
              {topicRows('publish')}
            </Col>
          </Row>
          <Divider orientation="left">{t('deviceDetail.config.mqtt.will')}</Divider>
          <Row gutter={16}>
            {item('mqtt.will.topic', t('deviceDetail.config.mqtt.willTopic'), text(), 10)}
            {item('mqtt.will.qos', t('deviceDetail.config.mqtt.qos'), select(QOS), 4)}
            {item('mqtt.will.retain', t('deviceDetail.config.mqtt.willRetain'), sw(), 4, true)}
            {item('mqtt.will.payload', t('deviceDetail.config.mqtt.willPayload'), text(), 24)}
          </Row>
        </Tabs.TabPane>

        <Tabs.TabPane key="serial" title={t('deviceDetail.config.group.serial')}>
          {serialPort('rs232')}
          {serialPort('rs485')}
        </Tabs.TabPane>

        <Tabs.TabPane key="socket" title={t('deviceDetail.config.group.socket')}>
          {Array.from({ length: SOCKET_SLOTS }, (_, i) => socket(i))}
        </Tabs.TabPane>

        <Tabs.TabPane key="aliyun" title={t('deviceDetail.config.group.aliyun')}>
          <Row gutter={16}>
            {item(
              'aliyun.mode',
              t('deviceDetail.config.aliyun.mode'),
              select(
                ['off', 'direct', 'transparent'].map((m) => ({
                  label: t(`deviceDetail.config.aliyun.mode.${m}`),
                  value: m,
                })),
              ),
              6,
            )}
            {item('aliyun.region', t('deviceDetail.config.aliyun.region'), text('cn-shanghai'), 6)}
            {item('aliyun.product_key', t('deviceDetail.config.aliyun.productKey'), text(), 12)}
            {item('aliyun.device_name', t('deviceDetail.config.aliyun.deviceName'), text(), 12)}
            {item('aliyun.device_secret', t('deviceDetail.config.aliyun.deviceSecret'), secret(), 12)}
          </Row>
        </Tabs.TabPane>
      </Tabs>
      <Space style={{ marginTop: 8 }}>
        <Button type="primary" htmlType="submit" loading={saving} data-testid="config-save">
          {t('deviceDetail.config.save')}
        </Button>
        <Button onClick={() => form.resetFields()}>{t('deviceDetail.config.reset')}</Button>
      </Space>
    </Form>
  );
}
