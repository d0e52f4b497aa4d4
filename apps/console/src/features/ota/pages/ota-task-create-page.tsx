import type { UsableFirmwareVersion } from '@cellhub/contract/firmware';
import { otaTaskCreateBody, type OtaTaskCreateBody } from '@cellhub/contract/ota';
import {
  Alert,
  Button,
  Card,
  DatePicker,
  Descriptions,
  Empty,
  Form,
  Input,
  InputNumber,
  Message,
  Radio,
  Result,
  Select,
  Space,
  Spin,
  Steps,
  Switch,
  Tag,
  Upload,
} from '@arco-design/web-react';
import { IconUpload } from '@arco-design/web-react/icon';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import DevicePicker from '../../../components/device-picker';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { formatTime } from '../../../lib/format-time';
import { useLocale, type Translate } from '../../../lib/i18n';
import { useCreateTask, usePreview, useUsableVersions } from '../api';
import {
  buildCreateBody,
  FORM_DEFAULTS,
  previewBody,
  type CreateFormValues,
  type TargetType,
} from '../create-body';
import locale from '../locale';
import { formatDuration, formatSize, policyRows, toMB } from '../ota-format';
import { parseSnFile, type SnFile } from '../sn-file';
import styles from './ota.module.css';

const STEP_FIELDS: (keyof CreateFormValues)[][] = [
  ['name', 'description', 'product_key', 'version_id'],
  ['target_type', 'filter_keyword', 'filter_online', 'filter_fw_version'],
  [
    'wave_type',
    'wave_size',
    'wave_pause_s',
    'max_concurrent',
    'failure_enabled',
    'failure_threshold_type',
    'failure_threshold',
    'retries',
    'retry_backoff_s',
    'timeout_s',
    'skip_same_version',
    'plan_time',
    'window_end',
  ],
];

const sample = (list: string[]) => list.slice(0, 5).join(', ') + (list.length > 5 ? ' …' : '');

/** /ota/task/create: basics, targets, rollout policy, then a summary with the devices and the download volume. */
export default function OtaTaskCreatePage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<CreateFormValues>();
  const [step, setStep] = useState(0);
  const [listFile, setListFile] = useState<{ name: string; parsed: SnFile } | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const [targetError, setTargetError] = useState<string | null>(null);
  const [body, setBody] = useState<OtaTaskCreateBody | undefined>();
  const create = useCreateTask();
  // Each step starts at the top of the page, not where the previous step's buttons were.
  useEffect(() => {
    window.scrollTo?.({ top: 0 });
  }, [step]);

  const productKey = Form.useWatch('product_key', form) as string | undefined;
  const targetType = (Form.useWatch('target_type', form) as TargetType | undefined) ?? 'all';
  const [productName, setProductName] = useState<string>();
  const versions = useUsableVersions(productKey);

  const targetsOk = (): boolean => {
    let error: string | null = null;
    if (targetType === 'list') {
      if (!listFile || listFile.parsed.sns.length === 0) error = t('ota.targets.list.required');
      else if (listFile.parsed.tooMany) error = t('ota.targets.list.tooMany');
    } else if (targetType === 'pick' && picked.length === 0) error = t('ota.targets.pick.required');
    setTargetError(error);
    return error === null;
  };

  const next = async () => {
    try {
      await form.validate(STEP_FIELDS[step] ?? []);
    } catch {
      return; // The fields say what is wrong.
    }
    if (step === 1 && !targetsOk()) return;
    if (step === 2) {
      const built = buildCreateBody(
        form.getFieldsValue() as CreateFormValues,
        listFile?.parsed.sns ?? [],
        picked,
      );
      // The contract's own schema finds what the fields' rules cannot (e.g. the window ending before the start).
      const parsed = otaTaskCreateBody.safeParse(built);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue?.path.at(-1);
        if (field === 'window_end')
          form.setFields({ window_end: { error: { message: t('ota.policy.windowEnd.rule') } } });
        else Message.error(`${issue?.path.join('.')}: ${issue?.message}`);
        return;
      }
      setBody(built);
    }
    setStep((s) => s + 1);
  };

  const submit = async () => {
    if (!body) return;
    try {
      const task = await create.mutateAsync(body);
      Message.success(t('ota.summary.created'));
      void navigate(`/ota/task/${task.id}`);
    } catch {
      // The request layer has shown why (10117 with the unknown serial numbers, 71002 no device ...).
    }
  };

  const readFile = async (file: File | undefined) => {
    if (!file) return;
    try {
      const parsed = await parseSnFile(file.name, await file.text());
      setListFile({ name: file.name, parsed });
      setTargetError(null);
    } catch {
      setListFile(null);
      setTargetError(t('ota.targets.list.readError'));
    }
  };

  const version = versions.data?.data.find((v) => v.id === body?.version_id);

  return (
    <PageContainer>
      <Card bordered={false} title={t('ota.create.title')}>
        <Steps current={step + 1} className={styles.steps}>
          <Steps.Step title={t('ota.step.basic')} description={t('ota.step.basic.desc')} />
          <Steps.Step title={t('ota.step.targets')} description={t('ota.step.targets.desc')} />
          <Steps.Step title={t('ota.step.policy')} description={t('ota.step.policy.desc')} />
          <Steps.Step title={t('ota.step.summary')} description={t('ota.step.summary.desc')} />
        </Steps>
        <div className={styles.stepBody}>
          <Form<CreateFormValues>
            form={form}
            initialValues={FORM_DEFAULTS}
            labelCol={{ span: 5 }}
            wrapperCol={{ span: 19 }}
            onValuesChange={(changed) => {
              if ('product_key' in changed) {
                // A version and hand-picked devices belong to one product.
                form.setFieldValue('version_id', undefined);
                setPicked([]);
              }
            }}
            style={{ display: step < 3 ? undefined : 'none' }}
          >
            <div style={{ display: step === 0 ? undefined : 'none' }}>
              <Form.Item
                label={t('ota.form.name')}
                field="name"
                rules={[{ required: true, message: t('ota.form.name.required') }]}
              >
                <Input placeholder={t('ota.form.name.placeholder')} maxLength={64} showWordLimit />
              </Form.Item>
              <Form.Item label={t('ota.form.description')} field="description">
                <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
              </Form.Item>
              <Form.Item
                label={t('ota.form.product')}
                field="product_key"
                rules={[{ required: true, message: t('ota.form.product.required') }]}
              >
                <ProductSelect
                  placeholder={t('ota.form.product.placeholder')}
                  labels="name"
                  onPick={(p) => setProductName(p?.name)}
                />
              </Form.Item>
              <Form.Item
                label={t('ota.form.version')}
                field="version_id"
                rules={[{ required: true, message: t('ota.form.version.required') }]}
              >
                <VersionSelect
                  t={t}
                  productKey={productKey}
                  versions={versions.data?.data}
                  loading={versions.isFetching}
                />
              </Form.Item>
            </div>

            <div style={{ display: step === 1 ? undefined : 'none' }}>
              <Form.Item label={t('ota.targets.type')} field="target_type">
                <Radio.Group type="button" onChange={() => setTargetError(null)}>
                  <Radio value="all">{t('ota.targets.all')}</Radio>
                  <Radio value="filter">{t('ota.targets.filter')}</Radio>
                  <Radio value="list">{t('ota.targets.list')}</Radio>
                  <Radio value="pick">{t('ota.targets.pick')}</Radio>
                </Radio.Group>
              </Form.Item>
              {targetType === 'all' && (
                <Form.Item label=" ">
                  <span className={styles.hint}>{t('ota.targets.all.hint')}</span>
                </Form.Item>
              )}
              <div style={{ display: targetType === 'filter' ? undefined : 'none' }}>
                <Form.Item label=" ">
                  <span className={styles.hint}>{t('ota.targets.filter.hint')}</span>
                </Form.Item>
                <Form.Item label={t('ota.targets.filter.keyword')} field="filter_keyword">
                  <Input maxLength={64} allowClear />
                </Form.Item>
                <Form.Item label={t('ota.targets.filter.online')} field="filter_online">
                  <Select
                    allowClear
                    placeholder={t('ota.filter.all')}
                    options={[
                      { label: t('ota.online'), value: '1' },
                      { label: t('ota.offline'), value: '0' },
                    ]}
                  />
                </Form.Item>
                <Form.Item label={t('ota.targets.filter.fwVersion')} field="filter_fw_version">
                  <Input
                    maxLength={128}
                    allowClear
                    placeholder={t('ota.targets.filter.fwVersion.placeholder')}
                  />
                </Form.Item>
              </div>
              {targetType === 'list' && (
                <Form.Item
                  label={t('ota.targets.list')}
                  required
                  extra={t('ota.targets.list.hint')}
                  validateStatus={targetError ? 'error' : undefined}
                  help={targetError ?? undefined}
                >
                  <Upload
                    drag
                    accept=".txt,.csv,text/plain,text/csv"
                    autoUpload={false}
                    showUploadList={false}
                    fileList={[]}
                    onChange={(_, file) => void readFile(file.originFile)}
                    data-testid="ota-sn-upload"
                  >
                    <div className="arco-upload-trigger-drag">
                      <IconUpload />
                      <div className="arco-upload-trigger-drag-text">{t('ota.targets.list.drop')}</div>
                    </div>
                  </Upload>
                  {listFile && (
                    <div className={styles.uploadResult}>
                      <Alert
                        type={listFile.parsed.tooMany ? 'error' : 'success'}
                        content={t('ota.targets.list.parsed', {
                          file: listFile.name,
                          count: listFile.parsed.sns.length,
                        })}
                      />
                      {listFile.parsed.invalidCount > 0 && (
                        <Alert
                          style={{ marginTop: 8 }}
                          type="warning"
                          content={t('ota.targets.list.invalid', {
                            count: listFile.parsed.invalidCount,
                            sample: sample(listFile.parsed.invalid),
                          })}
                        />
                      )}
                    </div>
                  )}
                </Form.Item>
              )}
              {targetType === 'pick' && (
                <Form.Item
                  label={t('ota.targets.pick')}
                  required
                  validateStatus={targetError ? 'error' : undefined}
                  help={
                    targetError ??
                    (picked.length ? t('ota.targets.pick.count', { count: picked.length }) : undefined)
                  }
                >
                  <DevicePicker
                    value={picked}
                    onChange={(sns) => {
                      setPicked(sns);
                      setTargetError(null);
                    }}
                    productKey={productKey}
                    placeholder={t('ota.targets.pick.placeholder')}
                    onlineText={t('ota.online')}
                    offlineText={t('ota.offline')}
                  />
                </Form.Item>
              )}
            </div>

            <div style={{ display: step === 2 ? undefined : 'none' }}>
              <PolicyFields t={t} form={form} />
            </div>
          </Form>

          {step === 3 && body && <Summary t={t} body={body} version={version} productName={productName} />}

          <div className={styles.stepActions}>
            {step > 0 && <Button onClick={() => setStep((s) => s - 1)}>{t('ota.prev')}</Button>}
            {step < 3 ? (
              <Button type="primary" onClick={() => void next()}>
                {t('ota.next')}
              </Button>
            ) : (
              <SubmitButton t={t} body={body} loading={create.isPending} onSubmit={() => void submit()} />
            )}
          </div>
        </div>
      </Card>
    </PageContainer>
  );
}

function VersionSelect({
  t,
  productKey,
  versions,
  loading,
  value,
  onChange,
}: {
  t: Translate;
  productKey: string | undefined;
  versions: UsableFirmwareVersion[] | undefined;
  loading: boolean;
  value?: number;
  onChange?: (v: number) => void;
}) {
  return (
    <Select
      value={value}
      onChange={onChange}
      disabled={!productKey}
      loading={loading}
      placeholder={productKey ? t('ota.form.version.placeholder') : t('ota.form.version.needProduct')}
      notFoundContent={<Empty description={t('ota.form.version.empty')} />}
      showSearch
      filterOption={(input, option) =>
        String((option.props as { extra?: string }).extra ?? '')
          .toLowerCase()
          .includes(input.toLowerCase())
      }
      renderFormat={(option) => {
        const v = versions?.find((x) => x.id === option?.value);
        return v ? `${v.firmware_name} ${v.version}` : String(option?.value ?? '');
      }}
      data-testid="ota-version-select"
    >
      {(versions ?? []).map((v) => (
        <Select.Option key={v.id} value={v.id} extra={`${v.firmware_name} ${v.version}`}>
          <span className={styles.versionOption}>
            <span className={styles.mono}>{v.version}</span>
            <span className={styles.muted}>{v.firmware_name}</span>
            <Tag size="small" color={v.type === 1 ? 'green' : 'gray'}>
              {t(`ota.firmwareType.${v.type}`)}
            </Tag>
            {v.latest && (
              <Tag size="small" color="arcoblue">
                {t('ota.form.version.latest')}
              </Tag>
            )}
            <span className={styles.muted}>{formatSize(v.size)}</span>
          </span>
        </Select.Option>
      ))}
    </Select>
  );
}

function PolicyFields({
  t,
  form,
}: {
  t: Translate;
  form: ReturnType<typeof Form.useForm<CreateFormValues>>[0];
}) {
  const waveType = Form.useWatch('wave_type', form) as CreateFormValues['wave_type'] | undefined;
  const failureEnabled = Form.useWatch('failure_enabled', form) as boolean | undefined;
  const failureType = Form.useWatch('failure_threshold_type', form) as
    CreateFormValues['failure_threshold_type'] | undefined;
  const percentMax = (v: number | undefined, cb: (e?: string) => void) =>
    cb(v !== undefined && v > 100 ? t('ota.policy.percentMax') : undefined);
  const num = (min: number, max: number) => [{ required: true, type: 'number' as const, min, max }];

  return (
    <>
      <Form.Item label={t('ota.policy.waves')} required>
        <Space>
          <Form.Item field="wave_type" noStyle>
            <Radio.Group type="button">
              <Radio value="percent">{t('ota.policy.wave.percent')}</Radio>
              <Radio value="count">{t('ota.policy.wave.count')}</Radio>
            </Radio.Group>
          </Form.Item>
          <Form.Item
            field="wave_size"
            noStyle
            rules={[...num(1, 100_000), ...(waveType === 'percent' ? [{ validator: percentMax }] : [])]}
          >
            <InputNumber
              min={1}
              max={waveType === 'percent' ? 100 : 100_000}
              precision={0}
              suffix={waveType === 'percent' ? '%' : t('ota.unit.devices')}
              style={{ width: 160 }}
              aria-label={t('ota.policy.waveSize')}
            />
          </Form.Item>
        </Space>
      </Form.Item>
      <Form.Item
        label={t('ota.policy.wavePause')}
        field="wave_pause_s"
        rules={num(0, 7 * 86_400)}
        extra={t('ota.policy.wavePause.extra')}
      >
        <SecondsInput t={t} min={0} max={7 * 86_400} />
      </Form.Item>
      <Form.Item
        label={t('ota.policy.maxConcurrent')}
        field="max_concurrent"
        rules={num(1, 100_000)}
        extra={t('ota.policy.maxConcurrent.extra')}
      >
        <InputNumber
          min={1}
          max={100_000}
          precision={0}
          suffix={t('ota.unit.devices')}
          style={{ width: 200 }}
        />
      </Form.Item>
      <Form.Item label={t('ota.policy.failure')}>
        <Space direction="vertical" size={8}>
          <Space>
            <Form.Item field="failure_enabled" noStyle triggerPropName="checked">
              <Switch size="small" />
            </Form.Item>
            <span>{t('ota.policy.failure.enabled')}</span>
          </Space>
          {failureEnabled !== false && (
            <Space>
              <Form.Item field="failure_threshold_type" noStyle>
                <Select
                  style={{ width: 120 }}
                  options={[
                    { label: t('ota.policy.failure.percent'), value: 'percent' },
                    { label: t('ota.policy.failure.count'), value: 'count' },
                  ]}
                />
              </Form.Item>
              <Form.Item
                field="failure_threshold"
                noStyle
                rules={[
                  ...num(1, 100_000),
                  ...(failureType === 'percent' ? [{ validator: percentMax }] : []),
                ]}
              >
                <InputNumber
                  min={1}
                  max={failureType === 'percent' ? 100 : 100_000}
                  precision={0}
                  suffix={failureType === 'percent' ? '%' : t('ota.unit.devices')}
                  style={{ width: 160 }}
                  aria-label={t('ota.policy.failure')}
                />
              </Form.Item>
            </Space>
          )}
        </Space>
      </Form.Item>
      <Form.Item label={t('ota.policy.retries')} field="retries" rules={num(0, 10)}>
        <InputNumber min={0} max={10} precision={0} suffix={t('ota.unit.times')} style={{ width: 200 }} />
      </Form.Item>
      <Form.Item
        label={t('ota.policy.backoff')}
        field="retry_backoff_s"
        rules={num(1, 3600)}
        extra={t('ota.policy.backoff.extra')}
      >
        <SecondsInput t={t} min={1} max={3600} />
      </Form.Item>
      <Form.Item
        label={t('ota.policy.timeout')}
        field="timeout_s"
        rules={num(10, 7 * 86_400)}
        extra={t('ota.policy.timeout.extra')}
      >
        <SecondsInput t={t} min={10} max={7 * 86_400} />
      </Form.Item>
      <Form.Item label={t('ota.policy.skipSame')}>
        <Space>
          <Form.Item field="skip_same_version" noStyle triggerPropName="checked">
            <Switch size="small" />
          </Form.Item>
          <span>{t('ota.policy.skipSame.label')}</span>
        </Space>
      </Form.Item>
      <Form.Item label={t('ota.policy.planTime')} field="plan_time" extra={t('ota.policy.planTime.extra')}>
        <DatePicker
          showTime
          format="YYYY-MM-DD HH:mm:ss"
          style={{ width: 240 }}
          disabledDate={(d) => d.isBefore(new Date(), 'day')}
        />
      </Form.Item>
      <Form.Item label={t('ota.policy.windowEnd')} field="window_end" extra={t('ota.policy.windowEnd.extra')}>
        <DatePicker
          showTime
          format="YYYY-MM-DD HH:mm:ss"
          style={{ width: 240 }}
          disabledDate={(d) => d.isBefore(new Date(), 'day')}
        />
      </Form.Item>
    </>
  );
}

/** Seconds, with how long that is beside it (`= 30 分钟`) once it is a minute or more. */
function SecondsInput({
  t,
  min,
  max,
  value,
  onChange,
}: {
  t: Translate;
  min: number;
  max: number;
  value?: number;
  onChange?: (v: number | undefined) => void;
}) {
  return (
    <Space size={12}>
      <InputNumber
        min={min}
        max={max}
        precision={0}
        suffix={t('ota.unit.seconds')}
        style={{ width: 200 }}
        value={value}
        onChange={(v) => onChange?.(v)}
      />
      {typeof value === 'number' && value >= 60 && (
        <span className={styles.muted}>= {formatDuration(value, t)}</span>
      )}
    </Space>
  );
}

function Stat({ label, value, testId }: { label: string; value: string | number; testId?: string }) {
  return (
    <div className={styles.stat}>
      <div className={styles.statLabel}>{label}</div>
      <div className={styles.statValue} data-testid={testId}>
        {value}
      </div>
    </div>
  );
}

function Summary({
  t,
  body,
  version,
  productName,
}: {
  t: Translate;
  body: OtaTaskCreateBody;
  version: UsableFirmwareVersion | undefined;
  productName: string | undefined;
}) {
  const preview = usePreview(useMemo(() => previewBody(body), [body]));
  const policy = useMemo(() => otaTaskCreateBody.parse(body).policy, [body]);
  const p = preview.data;

  const targets = body.targets;
  const targetText =
    targets.type === 'all'
      ? t('ota.targets.all')
      : targets.type === 'filter'
        ? t('ota.targets.filter')
        : targets.type === 'list'
          ? t('ota.detail.targets.list', { count: Array.isArray(targets.sns) ? targets.sns.length : 0 })
          : t('ota.detail.targets.pick', { count: Array.isArray(targets.sns) ? targets.sns.length : 0 });

  return (
    <div data-testid="ota-summary">
      <Spin loading={preview.isFetching} style={{ display: 'block' }}>
        {preview.isError ? (
          <Result
            status="error"
            title={t('ota.summary.error')}
            subTitle={preview.error instanceof Error ? preview.error.message : undefined}
            extra={
              <Button type="primary" onClick={() => void preview.refetch()}>
                {t('ota.retry')}
              </Button>
            }
          />
        ) : (
          p && (
            <>
              <div className={styles.volume}>
                <div className={styles.statLabel}>{t('ota.summary.volume')}</div>
                <div className={styles.volumeValue} data-testid="ota-volume">
                  {toMB(p.download_bytes)} MB
                </div>
                <div className={styles.hint}>
                  {t('ota.summary.volume.hint', { size: formatSize(p.size), devices: p.download_devices })}
                </div>
              </div>
              <div className={styles.statRow}>
                <Stat label={t('ota.summary.devices')} value={p.device_count} testId="ota-preview-devices" />
                <Stat label={t('ota.summary.download')} value={p.download_devices} />
                <Stat label={t('ota.summary.sameVersion')} value={p.same_version_count} />
                <Stat label={t('ota.summary.online')} value={p.online_count} />
                <Stat label={t('ota.summary.simBlocked')} value={p.sim_blocked_count} />
                <Stat label={t('ota.summary.size')} value={formatSize(p.size)} />
              </div>
              {p.not_found.length > 0 && (
                <Alert
                  type="error"
                  style={{ marginBottom: 16 }}
                  content={t('ota.summary.notFound', {
                    count: p.not_found.length,
                    sample: sample(p.not_found),
                  })}
                />
              )}
              {p.device_count === 0 && (
                <Alert type="warning" style={{ marginBottom: 16 }} content={t('ota.summary.noDevices')} />
              )}
            </>
          )
        )}
      </Spin>
      <Descriptions
        column={1}
        labelStyle={{ width: 140 }}
        title={t('ota.summary.basics')}
        data={[
          { label: t('ota.form.name'), value: body.name },
          { label: t('ota.form.product'), value: productName ?? body.product_key },
          {
            label: t('ota.form.version'),
            value: version ? `${version.firmware_name} ${version.version}` : (p?.version ?? '-'),
          },
          { label: t('ota.summary.targets'), value: targetText },
        ]}
      />
      <Descriptions
        column={1}
        labelStyle={{ width: 140 }}
        title={t('ota.summary.policy')}
        data={[
          ...policyRows(policy, t),
          {
            label: t('ota.policy.planTime'),
            value: body.plan_time ? formatTime(body.plan_time) : t('ota.planManual'),
          },
          { label: t('ota.policy.windowEnd'), value: body.window_end ? formatTime(body.window_end) : '-' },
        ]}
      />
    </div>
  );
}

function SubmitButton({
  t,
  body,
  loading,
  onSubmit,
}: {
  t: Translate;
  body: OtaTaskCreateBody | undefined;
  loading: boolean;
  onSubmit: () => void;
}) {
  const preview = usePreview(useMemo(() => (body ? previewBody(body) : undefined), [body]));
  const blocked =
    !preview.data ||
    preview.isFetching ||
    preview.data.device_count === 0 ||
    preview.data.not_found.length > 0;
  return (
    <Button type="primary" loading={loading} disabled={blocked} onClick={onSubmit}>
      {t('ota.summary.submit')}
    </Button>
  );
}
