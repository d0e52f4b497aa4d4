import type { ScriptTestResult } from '@cellhub/contract/scripts';
import { Alert, Button, Empty, Input, Radio, Space, Tag, Typography } from '@arco-design/web-react';
import { IconPlayArrow } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { useTestRun } from '../api';
import locale from '../locale';
import styles from './scripts.module.css';

type Fn = 'decode' | 'encode';
type InputType = 'hex' | 'text' | 'json';

/**
 * Runs the editor's source on a sample (POST /api/scripts/test-run; nothing stored) and shows the output, the
 * script's log lines and its error with the line, which `onErrorLine` passes to the editor to mark.
 */
export function TestRunPanel({
  source,
  productKey,
  onErrorLine,
}: {
  source: string;
  productKey?: string;
  onErrorLine?: (line: number | null) => void;
}) {
  const t = useLocale(locale);
  const run = useTestRun();
  const [fn, setFn] = useState<Fn>('decode');
  const [inputType, setInputType] = useState<InputType>('hex');
  const [input, setInput] = useState('');
  const [result, setResult] = useState<ScriptTestResult | undefined>();

  const start = async () => {
    const r = await run
      .mutateAsync({ source, function: fn, input_type: inputType, input, product_key: productKey ?? '' })
      .catch(() => undefined);
    setResult(r);
    onErrorLine?.(r?.error?.line ?? null);
  };

  const types: InputType[] = fn === 'decode' ? ['hex', 'text'] : ['text', 'hex', 'json'];

  return (
    <Space direction="vertical" size={12} style={{ width: '100%' }} data-testid="script-test-panel">
      <Typography.Text type="secondary">{t('script.test.help')}</Typography.Text>
      <Space wrap>
        <span>{t('script.test.function')}</span>
        <Radio.Group
          type="button"
          value={fn}
          onChange={(v: Fn) => {
            setFn(v);
            setInputType(v === 'decode' ? 'hex' : 'text');
          }}
          options={['decode', 'encode']}
        />
      </Space>
      <Space wrap>
        <span>{t('script.test.inputType')}</span>
        <Radio.Group
          type="button"
          value={inputType}
          onChange={(v: InputType) => setInputType(v)}
          options={types.map((v) => ({
            value: v,
            label: v === 'hex' ? 'HEX' : v === 'json' ? 'JSON' : t('script.test.input.text'),
          }))}
        />
      </Space>
      <Input.TextArea
        value={input}
        onChange={setInput}
        placeholder={t(`script.test.input.${inputType}`)}
        autoSize={{ minRows: 2, maxRows: 6 }}
        maxLength={8192}
        className={styles.mono}
        data-testid="script-test-input"
      />
      <Button
        type="primary"
        icon={<IconPlayArrow />}
        loading={run.isPending}
        disabled={!source.trim()}
        onClick={() => void start()}
        data-testid="script-test-run"
      >
        {t('script.test.run')}
      </Button>
      {!result ? (
        <Empty description={t('script.test.empty')} />
      ) : (
        <Space direction="vertical" size={8} style={{ width: '100%' }} data-testid="script-test-result">
          <Space>
            <Tag color={result.ok ? 'green' : 'red'}>
              {result.ok ? t('script.test.ok') : t('script.test.failed')}
            </Tag>
            <Typography.Text type="secondary">{t('script.test.ms', { ms: result.ms })}</Typography.Text>
          </Space>
          {result.error && (
            <Alert
              type="error"
              data-testid="script-test-error"
              content={
                result.error.line
                  ? t('script.test.errorAt', { line: result.error.line, message: result.error.message })
                  : result.error.message
              }
            />
          )}
          {result.ok && (
            <>
              <Typography.Text bold>{t('script.test.output')}</Typography.Text>
              <pre className={styles.output} data-testid="script-test-output">
                {JSON.stringify(result.output, null, 2)}
              </pre>
            </>
          )}
          <Typography.Text bold>{t('script.test.logs')}</Typography.Text>
          {result.logs.length === 0 ? (
            <Typography.Text type="secondary">{t('script.test.noLogs')}</Typography.Text>
          ) : (
            <pre className={styles.logs} data-testid="script-test-logs">
              {result.logs.join('\n')}
            </pre>
          )}
        </Space>
      )}
    </Space>
  );
}
