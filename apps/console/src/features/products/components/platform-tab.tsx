import type { PlatformCredentialItem } from '@cellhub/contract/platforms';
import type { ProductDetail } from '@cellhub/contract/products';
import {
  Alert,
  Badge,
  Button,
  Descriptions,
  Form,
  Input,
  Message,
  Modal,
  Space,
  Table,
  Tag,
  type TableColumnProps,
} from '@arco-design/web-react';
import { IconImport, IconSync } from '@arco-design/web-react/icon';
import { useState } from 'react';
import type { Translate } from '../../../lib/i18n';
import { usePlatformCredentials, usePlatformSync, useSetCredentials } from '../api';
import styles from '../pages/product.module.css';
import { parseCredentialLines } from '../parse-credentials';

interface SecretValues {
  device_name?: string;
  device_secret: string;
}

/** The product's cloud binding and its devices' identities there (secrets go in, never come back). */
export default function PlatformTab({ product, t }: { product: ProductDetail; t: Translate }) {
  const productKey = product.product_key;
  const [page, setPage] = useState({ current: 1, per_page: 10 });
  const creds = usePlatformCredentials(productKey, page);
  const setCreds = useSetCredentials();
  const sync = usePlatformSync();
  const [editing, setEditing] = useState<PlatformCredentialItem | null>(null);
  const [importing, setImporting] = useState(false);
  const [importText, setImportText] = useState('');
  const [form] = Form.useForm<SecretValues>();

  if (!product.iot_platform_id) {
    return <Alert type="info" content={t('product.platform.unbound')} />;
  }

  const report = (results: { code: number }[]) => {
    const ok = results.filter((r) => r.code === 0).length;
    const failed = results.length - ok;
    (failed ? Message.warning : Message.success)(t('product.platform.result', { ok, failed }));
    return results;
  };

  const saveOne = async () => {
    if (!editing) return;
    const v = await form.validate();
    const [result] = await setCreds.mutateAsync({
      productKey,
      items: [
        { sn: editing.sn, device_name: v.device_name?.trim() || undefined, device_secret: v.device_secret },
      ],
    });
    if (result && result.code !== 0) {
      form.setFields({ device_secret: { error: { message: result.message ?? String(result.code) } } });
      return;
    }
    report(result ? [result] : []);
    setEditing(null);
  };

  const saveImport = async () => {
    const { items, badLine } = parseCredentialLines(importText);
    if (badLine !== undefined) {
      Message.error(t('product.platform.import.bad', { line: badLine }));
      return;
    }
    if (!items.length) return;
    report(await setCreds.mutateAsync({ productKey, items }));
    setImporting(false);
    setImportText('');
  };

  const columns: TableColumnProps<PlatformCredentialItem>[] = [
    {
      title: t('product.devices.sn'),
      dataIndex: 'sn',
      render: (v: string) => <span className={styles.mono}>{v}</span>,
    },
    { title: t('product.platform.deviceName'), dataIndex: 'device_name' },
    {
      title: t('product.platform.hasSecret'),
      dataIndex: 'has_secret',
      render: (v: boolean) => (
        <Badge
          status={v ? 'success' : 'default'}
          text={v ? t('product.platform.yes') : t('product.platform.no')}
        />
      ),
    },
    {
      title: t('product.platform.hasParam'),
      dataIndex: 'has_param',
      render: (v: boolean) => (
        <Badge
          status={v ? 'success' : 'warning'}
          text={v ? t('product.platform.yes') : t('product.platform.no')}
        />
      ),
    },
    {
      title: t('product.col.operations'),
      dataIndex: 'operations',
      render: (_: unknown, row) => (
        <Button
          type="text"
          size="small"
          onClick={() => {
            setEditing(row);
            form.setFieldsValue({
              device_name: row.device_name === row.sn ? '' : row.device_name,
              device_secret: '',
            });
          }}
        >
          {t('product.platform.setSecret')}
        </Button>
      ),
    },
  ];

  return (
    <>
      <Descriptions
        column={3}
        style={{ marginBottom: 16 }}
        data={[
          { label: t('product.platform.name'), value: product.iot_platform_name },
          {
            label: t('product.platform.type'),
            value: <Tag color="arcoblue">{product.iot_platform_type}</Tag>,
          },
          {
            label: t('product.platform.config'),
            value: (
              <span className={styles.mono}>
                {Object.entries(product.iot_platform_config)
                  .map(([k, v]) => `${k}=${String(v)}`)
                  .join(', ') || '—'}
              </span>
            ),
          },
        ]}
      />
      <h4>{t('product.platform.credentials')}</h4>
      <div className={styles.help}>{t('product.platform.credentials.help')}</div>
      <Space className={styles.toolbar}>
        <Button icon={<IconImport />} onClick={() => setImporting(true)}>
          {t('product.platform.import')}
        </Button>
        <Button
          icon={<IconSync />}
          loading={sync.isPending}
          onClick={() =>
            void sync.mutateAsync(productKey).then(
              (r) =>
                Message.success(
                  t('product.platform.synced', { updated: r.updated, missing: r.missing_credentials }),
                ),
              () => undefined,
            )
          }
        >
          {t('product.platform.sync')}
        </Button>
      </Space>
      <Table<PlatformCredentialItem>
        rowKey="sn"
        loading={creds.isFetching}
        columns={columns}
        data={creds.data?.data ?? []}
        pagination={{
          current: page.current,
          pageSize: page.per_page,
          total: creds.data?.total ?? 0,
          onChange: (current: number, per_page: number) => setPage({ current, per_page }),
        }}
      />
      <Modal
        title={`${t('product.platform.setSecret')} · ${editing?.sn ?? ''}`}
        visible={!!editing}
        onOk={() => void saveOne()}
        onCancel={() => setEditing(null)}
        confirmLoading={setCreds.isPending}
        okText={t('product.save')}
        cancelText={t('product.cancel')}
        unmountOnExit
      >
        <Form<SecretValues> form={form} layout="vertical">
          <Form.Item label={t('product.platform.deviceName')} field="device_name">
            <Input maxLength={64} placeholder={editing?.sn} />
          </Form.Item>
          <Form.Item
            label={t('product.platform.secret')}
            field="device_secret"
            rules={[{ required: true, message: t('product.platform.secret.required') }]}
          >
            <Input.Password maxLength={512} autoComplete="off" />
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        title={t('product.platform.import')}
        visible={importing}
        onOk={() => void saveImport()}
        onCancel={() => setImporting(false)}
        confirmLoading={setCreds.isPending}
        okText={t('product.save')}
        cancelText={t('product.cancel')}
      >
        <div className={styles.help}>{t('product.platform.import.help')}</div>
        <Input.TextArea
          className={styles.json}
          value={importText}
          onChange={setImportText}
          autoSize={{ minRows: 6, maxRows: 14 }}
          placeholder={'SN-0001,dtu-0001,secret\nSN-0002,,secret'}
        />
      </Modal>
    </>
  );
}
