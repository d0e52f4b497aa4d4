import type { DeviceImportResult } from '@cellhub/contract/devices';
import {
  Alert,
  Button,
  Card,
  Checkbox,
  Form,
  Input,
  Space,
  Tabs,
  Typography,
  Upload,
} from '@arco-design/web-react';
import type { UploadItem } from '@arco-design/web-react/es/Upload';
import { IconDownload, IconUpload } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { PageContainer } from '../../../components/page-container';
import ProductSelect from '../../../components/product-select';
import { useLocale, type Translate } from '../../../lib/i18n';
import { useCreateDevices, useImportDevices } from '../api';
import { ResultTable, type ResultLine } from '../../../components/device-lines/result-table';
import { download, TEMPLATE_CSV } from '../export-devices';
import { badSnLines } from '../line-reason';
import locale from '../locale';
import styles from './device-pages.module.css';

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
      placeholder={props.t('device.create.product.placeholder')}
    />
  );
}

function BySnForm({ t }: { t: Translate }) {
  const [form] = Form.useForm<{ product_key: string; sn: string; name?: string; description?: string }>();
  const create = useCreateDevices();
  const [lines, setLines] = useState<ResultLine[] | null>(null);
  const [count, setCount] = useState(0);

  const submit = async () => {
    const v = await form.validate();
    try {
      setLines(
        await create.mutateAsync({
          ...v,
          name: v.name || undefined,
          description: v.description || undefined,
        }),
      );
    } catch {
      // The request layer has shown why.
    }
  };

  const ok = lines?.filter((l) => l.code === 0).length ?? 0;
  return (
    <>
      <Form form={form} layout="vertical" className={styles.narrow} onSubmit={() => void submit()}>
        <Form.Item
          label={t('device.create.product')}
          field="product_key"
          rules={[{ required: true, message: t('device.create.product.required') }]}
        >
          <ProductField t={t} />
        </Form.Item>
        <Form.Item
          label={t('device.create.sn')}
          field="sn"
          extra={count ? t('device.create.sn.count', { count }) : t('device.create.sn.rule')}
          rules={[
            {
              validator: (v: string | undefined, cb) => {
                const list = snLines(v);
                if (list.length === 0) return cb(t('device.create.sn.required'));
                if (list.length > 1000) return cb(t('device.create.sn.placeholder'));
                // Said here, line by line, before the server would refuse them one by one.
                const bad = badSnLines(v);
                if (bad.length > 0) {
                  const shown = bad.slice(0, 3).map((b) => t('device.create.sn.badLine', b));
                  return cb(
                    t('device.create.sn.badLines', {
                      count: bad.length,
                      lines: shown.join(', ') + (bad.length > 3 ? ' …' : ''),
                      rule: t('device.rule.sn_rule', { field: t('device.col.sn') }),
                    }),
                  );
                }
                cb();
              },
            },
          ]}
        >
          <Input.TextArea
            placeholder={t('device.create.sn.placeholder')}
            autoSize={{ minRows: 6, maxRows: 16 }}
            onChange={(v) => setCount(snLines(v).length)}
            className={styles.mono}
          />
        </Form.Item>
        <Form.Item label={t('device.create.name')} field="name">
          <Input placeholder={t('device.create.name.placeholder')} maxLength={64} />
        </Form.Item>
        <Form.Item label={t('device.create.description')} field="description">
          <Input maxLength={200} />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={create.isPending}>
            {t('device.create.submit')}
          </Button>
        </Form.Item>
      </Form>
      {lines && (
        <>
          <Alert
            className={styles.summary}
            type={ok === lines.length ? 'success' : ok === 0 ? 'error' : 'warning'}
            content={t('device.create.summary', { ok, failed: lines.length - ok })}
          />
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
  const run = useImportDevices();
  const [result, setResult] = useState<DeviceImportResult | null>(null);

  const submit = async () => {
    const v = await form.validate();
    const file = files[0]?.originFile;
    if (!file) {
      setFileError(true);
      return;
    }
    try {
      setResult(await run.mutateAsync({ productKey: v.product_key, updateOnly: !!v.update_only, file }));
    } catch {
      // The request layer has shown why (413 too large, 415 wrong type, a bad header row).
    }
  };

  return (
    <>
      <Form form={form} layout="vertical" className={styles.narrow} onSubmit={() => void submit()}>
        <Form.Item
          label={t('device.create.product')}
          field="product_key"
          rules={[{ required: true, message: t('device.create.product.required') }]}
        >
          <ProductField t={t} />
        </Form.Item>
        <Form.Item
          label={t('device.import.file')}
          required
          extra={t('device.import.file.hint')}
          validateStatus={fileError ? 'error' : undefined}
          help={fileError ? t('device.import.file.required') : undefined}
        >
          <Space direction="vertical">
            <Upload
              accept=".csv,.xlsx"
              autoUpload={false}
              // The file is read on submit: no "start upload" (play) icon or progress ring beside it.
              showUploadList={{ startIcon: null }}
              progressProps={{ style: { display: 'none' } }}
              fileList={files}
              onChange={(list) => {
                setFiles(list.slice(-1));
                setFileError(false);
                setResult(null);
              }}
            >
              <Button icon={<IconUpload />}>{t('device.import.file')}</Button>
            </Upload>
            <Typography.Text>
              <Button
                type="text"
                size="mini"
                icon={<IconDownload />}
                onClick={() =>
                  download(new Blob([TEMPLATE_CSV], { type: 'text/csv' }), 'devices-template.csv')
                }
              >
                {t('device.import.template')}
              </Button>
            </Typography.Text>
          </Space>
        </Form.Item>
        <Form.Item field="update_only" triggerPropName="checked" extra={t('device.import.updateOnly.hint')}>
          <Checkbox>{t('device.import.updateOnly')}</Checkbox>
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={run.isPending}>
            {t('device.import.submit')}
          </Button>
        </Form.Item>
      </Form>
      {result && (
        <>
          <Alert
            className={styles.summary}
            type={result.failed === 0 ? 'success' : result.failed === result.total ? 'error' : 'warning'}
            content={t('device.import.summary', {
              total: result.total,
              created: result.created,
              updated: result.updated,
              failed: result.failed,
            })}
          />
          <ResultTable lines={result.lines} withRow />
        </>
      )}
    </>
  );
}

export default function DeviceCreatePage() {
  const t = useLocale(locale);
  return (
    <PageContainer>
      <Card bordered={false} title={t('device.create.title')}>
        <Tabs defaultActiveTab="sn" destroyOnHide={false}>
          <Tabs.TabPane key="sn" title={t('device.create.tab.sn')}>
            <BySnForm t={t} />
          </Tabs.TabPane>
          <Tabs.TabPane key="import" title={t('device.create.tab.import')}>
            <ImportForm t={t} />
          </Tabs.TabPane>
        </Tabs>
      </Card>
    </PageContainer>
  );
}
