import type { ProductDetail } from '@cellhub/contract/products';
import { Alert, Button, Descriptions, Empty, Input, Message, Radio, Space } from '@arco-design/web-react';
import { useMemo, useState } from 'react';
import type { Translate } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useSaveProduct } from '../api';
import { flatten, parseConfigJson } from '../config-json';
import styles from '../pages/product.module.css';

const GROUPS = ['global', 'mqtt', 'serial', 'socket', 'aliyun'] as const;

/** The product's default device configuration: JSON checked against the contract, and a grouped view of it. */
export default function ConfigTab({ product, t }: { product: ProductDetail; t: Translate }) {
  const initial = useMemo(() => JSON.stringify(product.device_config, null, 2), [product.device_config]);
  const [text, setText] = useState(initial);
  const [mode, setMode] = useState<'json' | 'view'>('json');
  const save = useSaveProduct();
  const parsed = useMemo(() => parseConfigJson(text), [text]);
  const problem = parsed.ok
    ? undefined
    : parsed.reason === 'json'
      ? t('product.config.notJson')
      : t('product.config.invalid', { issues: parsed.issues.slice(0, 5).join('; ') });

  const submit = async () => {
    if (!parsed.ok) return;
    try {
      await save.mutateAsync({ productKey: product.product_key, body: { device_config: parsed.config } });
      Message.success(t('product.saved'));
    } catch (e) {
      if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };

  const grouped = parsed.ok ? (parsed.config as Record<string, unknown>) : product.device_config;
  const other = Object.keys(grouped).filter((k) => !(GROUPS as readonly string[]).includes(k));

  return (
    <>
      <div className={styles.help}>{t('product.config.help')}</div>
      <Space className={styles.toolbar}>
        <Radio.Group type="button" value={mode} onChange={setMode}>
          <Radio value="json">{t('product.config.json')}</Radio>
          <Radio value="view">{t('product.config.view')}</Radio>
        </Radio.Group>
      </Space>
      {mode === 'json' ? (
        <>
          <Input.TextArea
            aria-label="device_config"
            className={styles.json}
            value={text}
            onChange={setText}
            autoSize={{ minRows: 12, maxRows: 28 }}
            spellCheck={false}
          />
          {problem && <Alert type="error" content={problem} style={{ marginTop: 12 }} />}
          <Space className={styles.actions} style={{ marginTop: 12 }}>
            <Button
              type="primary"
              disabled={!parsed.ok}
              loading={save.isPending}
              onClick={() => void submit()}
            >
              {t('product.save')}
            </Button>
            <Button
              disabled={!parsed.ok}
              onClick={() => parsed.ok && setText(JSON.stringify(parsed.config, null, 2))}
            >
              {t('product.config.format')}
            </Button>
          </Space>
        </>
      ) : Object.keys(grouped).length === 0 ? (
        <Empty description={t('product.config.empty')} />
      ) : (
        [...GROUPS, ...other]
          .filter((g) => grouped[g] !== undefined)
          .map((g) => (
            <Descriptions
              key={g}
              title={g}
              column={2}
              border
              size="small"
              style={{ marginBottom: 16 }}
              data={flatten(grouped[g]).map(([k, v]) => ({ label: k || g, value: v }))}
            />
          ))
      )}
    </>
  );
}
