import { rangeSns, STOCK_RANGE_MAX, type StockRangeResult } from '@cellhub/contract/device-stock';
import type { DeviceImportResult } from '@cellhub/contract/devices';
import {
  Alert,
  Button,
  Card,
  Checkbox,
  Form,
  Grid,
  Input,
  InputNumber,
  Tabs,
  Typography,
  Upload,
} from '@arco-design/web-react';
import type { UploadItem } from '@arco-design/web-react/es/Upload';
import { IconUpload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { ResultTable, type ResultLine } from '../../../components/device-lines/result-table';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { useLocale, type Translate } from '../../../lib/i18n';
import { useCreateRange, useCreateSns, useImportStock } from '../api';
import locale from '../locale';
import styles from './stock-pages.module.css';

const snLines = (text: string | undefined) =>
  (text ?? '')
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);

function ProductField(props: {
  t: Translate;
  value?: string;
  onChange?: (v: string | string[] | undefined) => void;
}) {
  return (
    <ProductSelect
      value={props.value}
      onChange={props.onChange}
      placeholder={props.t('stock.create.product.placeholder')}
    />
  );
}

const productItem = (t: Translate) => (
  <Form.Item
    label={t('stock.col.product')}
    field="product_key"
    rules={[{ required: true, message: t('stock.create.product.required') }]}
  >
    <ProductField t={t} />
  </Form.Item>
);

function Summary({ t, ok, failed }: { t: Translate; ok: number; failed: number }) {
  return (
    <Alert
      className={styles.summary}
      type={failed === 0 ? 'success' : ok === 0 ? 'error' : 'warning'}
      content={t('stock.create.summary', { ok, failed })}
    />
  );
}

interface RangeValues {
  product_key: string;
  prefix: string;
  from: number;
  to: number;
  digits: number;
}

/** prefix + from..to zero-padded: the preview says the first and last sn and the count before anything is made. */
function RangeForm({ t }: { t: Translate }) {
  const [form] = Form.useForm<RangeValues>();
  const run = useCreateRange();
  const [result, setResult] = useState<StockRangeResult | null>(null);
  const [preview, setPreview] = useState('');
  const update = (_: unknown, v: Partial<RangeValues>) => {
    const { prefix, from, to, digits } = v;
    if (!prefix || from === undefined || to === undefined || !digits || to < from) return setPreview('');
    const count = to - from + 1;
    const [first] = rangeSns({ prefix, from, to: from, digits });
    const [last] = rangeSns({ prefix, from: to, to, digits });
    setPreview(t('stock.range.preview', { first: first ?? '', last: last ?? '', count }));
  };
  const submit = async () => {
    const v = await form.validate();
    try {
      setResult(await run.mutateAsync(v));
    } catch {
      // The request layer has shown why.
    }
  };
  return (
    <>
      <Form
        form={form}
        layout="vertical"
        className={styles.narrow}
        initialValues={{ digits: 4, from: 1 }}
        onValuesChange={update}
        onSubmit={() => void submit()}
      >
        {productItem(t)}
        <Grid.Row gutter={16}>
          <Grid.Col span={9}>
            <Form.Item
              label={t('stock.range.prefix')}
              field="prefix"
              rules={[
                { required: true, message: t('stock.range.prefix.required') },
                { match: /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,31}$/, message: t('stock.range.prefix.rule') },
              ]}
            >
              <Input maxLength={32} placeholder="DTU2611" />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={5}>
            <Form.Item label={t('stock.range.from')} field="from" rules={[{ required: true }]}>
              <InputNumber min={0} max={99_999_999} precision={0} />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={5}>
            <Form.Item
              label={t('stock.range.to')}
              field="to"
              rules={[
                { required: true, message: t('stock.range.to.required') },
                {
                  validator: (v: number | undefined, cb) => {
                    const from = form.getFieldValue('from') as number | undefined;
                    if (v === undefined || from === undefined) return cb();
                    if (v < from) return cb(t('stock.range.to.order'));
                    if (v - from >= STOCK_RANGE_MAX)
                      return cb(t('stock.range.to.max', { max: STOCK_RANGE_MAX }));
                    cb();
                  },
                },
              ]}
            >
              <InputNumber min={0} max={99_999_999} precision={0} />
            </Form.Item>
          </Grid.Col>
          <Grid.Col span={5}>
            <Form.Item label={t('stock.range.digits')} field="digits" rules={[{ required: true }]}>
              <InputNumber min={1} max={8} precision={0} />
            </Form.Item>
          </Grid.Col>
        </Grid.Row>
        <Typography.Paragraph className={styles.muted}>
          {preview || t('stock.range.hint')}
        </Typography.Paragraph>
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={run.isPending}>
            {t('stock.range.submit')}
          </Button>
        </Form.Item>
      </Form>
      {result && (
        <>
          <Summary t={t} ok={result.created} failed={result.failed} />
          <ResultTable lines={result.lines} />
        </>
      )}
    </>
  );
}

function SnsForm({ t }: { t: Translate }) {
  const [form] = Form.useForm<{ product_key: string; sn: string }>();
  const create = useCreateSns();
  const [lines, setLines] = useState<ResultLine[] | null>(null);
  const [count, setCount] = useState(0);
  const submit = async () => {
    const v = await form.validate();
    try {
      // No owner: an admin's new devices are in stock.
      setLines(await create.mutateAsync({ product_key: v.product_key, sn: v.sn }));
    } catch {
      // The request layer has shown why.
    }
  };
  const ok = lines?.filter((l) => l.code === 0).length ?? 0;
  return (
    <>
      <Form form={form} layout="vertical" className={styles.narrow} onSubmit={() => void submit()}>
        {productItem(t)}
        <Form.Item
          label={t('stock.sns.label')}
          field="sn"
          extra={count ? t('stock.sns.count', { count }) : t('stock.sns.hint')}
          rules={[
            {
              validator: (v: string | undefined, cb) => {
                const n = snLines(v).length;
                if (n === 0) return cb(t('stock.sns.required'));
                if (n > 1000) return cb(t('stock.sns.max'));
                cb();
              },
            },
          ]}
        >
          <Input.TextArea
            className={styles.mono}
            autoSize={{ minRows: 6, maxRows: 16 }}
            placeholder={t('stock.sns.placeholder')}
            onChange={(v) => setCount(snLines(v).length)}
          />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={create.isPending}>
            {t('stock.sns.submit')}
          </Button>
        </Form.Item>
      </Form>
      {lines && (
        <>
          <Summary t={t} ok={ok} failed={lines.length - ok} />
          <ResultTable lines={lines} />
        </>
      )}
    </>
  );
}

function ImportForm({ t }: { t: Translate }) {
  const [form] = Form.useForm<{ product_key: string; update_only: boolean }>();
  const [files, setFiles] = useState<UploadItem[]>([]);
  const [fileError, setFileError] = useState(false);
  const run = useImportStock();
  const [result, setResult] = useState<DeviceImportResult | null>(null);
  const submit = async () => {
    const v = await form.validate();
    const file = files[0]?.originFile;
    if (!file) return setFileError(true);
    try {
      setResult(await run.mutateAsync({ productKey: v.product_key, updateOnly: !!v.update_only, file }));
    } catch {
      // The request layer has shown why (413 too large, 415 wrong type, a bad header row).
    }
  };
  return (
    <>
      <Form form={form} layout="vertical" className={styles.narrow} onSubmit={() => void submit()}>
        {productItem(t)}
        <Form.Item
          label={t('stock.import.file')}
          required
          extra={t('stock.import.file.hint')}
          validateStatus={fileError ? 'error' : undefined}
          help={fileError ? t('stock.import.file.required') : undefined}
        >
          <Upload
            accept=".csv,.xlsx"
            autoUpload={false}
            showUploadList={{ startIcon: null }}
            progressProps={{ style: { display: 'none' } }}
            fileList={files}
            onChange={(list) => {
              setFiles(list.slice(-1));
              setFileError(false);
              setResult(null);
            }}
          >
            <Button icon={<IconUpload />}>{t('stock.import.file')}</Button>
          </Upload>
        </Form.Item>
        <Form.Item field="update_only" triggerPropName="checked" extra={t('stock.import.updateOnly.hint')}>
          <Checkbox>{t('stock.import.updateOnly')}</Checkbox>
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={run.isPending}>
            {t('stock.import.submit')}
          </Button>
        </Form.Item>
      </Form>
      {result && (
        <>
          <Summary t={t} ok={result.created + result.updated} failed={result.failed} />
          <ResultTable lines={result.lines} withRow />
        </>
      )}
    </>
  );
}

/** /device-admin/create (admin): new stock devices by range, by list, or from a file. */
export default function StockCreatePage() {
  const t = useLocale(locale);
  return (
    <PageContainer>
      <Card bordered={false} title={t('stock.create.title')}>
        <Tabs defaultActiveTab="range" destroyOnHide={false}>
          <Tabs.TabPane key="range" title={t('stock.create.tab.range')}>
            <RangeForm t={t} />
          </Tabs.TabPane>
          <Tabs.TabPane key="sns" title={t('stock.create.tab.sns')}>
            <SnsForm t={t} />
          </Tabs.TabPane>
          <Tabs.TabPane key="import" title={t('stock.create.tab.import')}>
            <ImportForm t={t} />
          </Tabs.TabPane>
        </Tabs>
      </Card>
    </PageContainer>
  );
}
