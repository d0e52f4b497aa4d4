import { GATEWAY_BIND_MAX, type GatewayBindResult } from '@cellhub/contract/gateway-rules';
import { SN_RULE } from '@cellhub/contract/protocol';
import { errorText } from '@cellhub/contract/errors';
import { Alert, Button, Form, Input, Modal, Space, Table, Tag } from '@arco-design/web-react';
import { useState } from 'react';
import { useLocale, useLocaleState } from '../../../lib/i18n';
import { useBindSubDevices } from '../api';
import locale from '../locale';
import { CandidateSelect } from './candidate-select';

interface Line {
  sn: string;
  address: string;
  name: string;
}

/** `sn[, address[, name]]` per line (commas, tabs or spaces between the first two; the rest is the name). */
export function parseLines(text: string): { lines: Line[]; bad: number | undefined } {
  const lines: Line[] = [];
  const rows = text.split(/\r?\n/);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!.trim();
    if (!row) continue;
    const parts = row.split(/\s*[,，\t]\s*|\s+/);
    const sn = parts[0] ?? '';
    if (!SN_RULE.test(sn)) return { lines, bad: i + 1 };
    const address = parts[1] ?? '';
    const name = parts.slice(2).join(' ');
    lines.push({ sn, address: address.slice(0, 64), name: name.slice(0, 64) });
  }
  return { lines, bad: undefined };
}

/** Binds several sub-devices at once and shows what became of each sn. */
export function BindModal({
  ruleId,
  visible,
  onClose,
}: {
  ruleId: number;
  visible: boolean;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const { locale: lang } = useLocaleState();
  const bind = useBindSubDevices(ruleId);
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<string[]>([]);
  const [problem, setProblem] = useState<string>();
  const [result, setResult] = useState<GatewayBindResult>();

  const reset = () => {
    setText('');
    setPicked([]);
    setProblem(undefined);
    setResult(undefined);
  };
  const close = () => {
    reset();
    onClose();
  };

  const submit = async () => {
    const { lines, bad } = parseLines(text);
    if (bad !== undefined) return setProblem(t('gwRule.bind.badLine', { n: bad }));
    const typed = new Set(lines.map((l) => l.sn));
    const all = [
      ...lines,
      ...picked.filter((sn) => !typed.has(sn)).map((sn) => ({ sn, address: '', name: '' })),
    ];
    if (all.length === 0) return setProblem(t('gwRule.bind.empty'));
    if (all.length > GATEWAY_BIND_MAX) return setProblem(t('gwRule.bind.tooMany', { n: GATEWAY_BIND_MAX }));
    setProblem(undefined);
    const r = await bind.mutateAsync({ sub_devices: all }).catch(() => undefined);
    if (r) setResult(r);
  };

  return (
    <Modal
      title={t('gwRule.bind.title')}
      visible={visible}
      onCancel={close}
      style={{ width: 640 }}
      footer={
        result ? (
          <Space>
            <Button onClick={reset}>{t('gwRule.bind.again')}</Button>
            <Button type="primary" onClick={close}>
              {t('gwRule.close')}
            </Button>
          </Space>
        ) : (
          <Space>
            <Button onClick={close}>{t('common.cancel')}</Button>
            <Button
              type="primary"
              loading={bind.isPending}
              onClick={() => void submit()}
              data-testid="gw-bind-submit"
            >
              {t('gwRule.bind.submit')}
            </Button>
          </Space>
        )
      }
    >
      {result ? (
        <Space direction="vertical" style={{ width: '100%' }} data-testid="gw-bind-result">
          <Alert
            type={result.failed === 0 ? 'success' : result.done === 0 ? 'error' : 'warning'}
            content={t('gwRule.bind.result', { done: result.done, failed: result.failed })}
          />
          <Table
            rowKey="sn"
            size="small"
            pagination={false}
            scroll={{ y: 300 }}
            data={result.results}
            columns={[
              { title: t('gwRule.bind.col.sn'), dataIndex: 'sn' },
              {
                title: t('gwRule.bind.col.result'),
                dataIndex: 'code',
                render: (code: number, row) =>
                  code === 0 ? (
                    <Tag color="green">{t('gwRule.bind.ok')}</Tag>
                  ) : (
                    <Tag color="red">{`${errorText(code, lang) ?? row.message} (${code})`}</Tag>
                  ),
              },
            ]}
          />
        </Space>
      ) : (
        <Form layout="vertical">
          <Alert type="info" content={t('gwRule.bind.help')} style={{ marginBottom: 16 }} />
          <Form.Item label={t('gwRule.bind.lines')}>
            <Input.TextArea
              value={text}
              onChange={setText}
              placeholder={t('gwRule.bind.lines.placeholder')}
              autoSize={{ minRows: 4, maxRows: 10 }}
              data-testid="gw-bind-lines"
            />
          </Form.Item>
          <Form.Item label={t('gwRule.bind.pick')}>
            <CandidateSelect
              nodetype="sub_device"
              multiple
              value={picked}
              onChange={(v) => setPicked(Array.isArray(v) ? v : [v])}
              placeholder={t('gwRule.bind.pick.placeholder')}
              onlineText={t('gwRule.online')}
              offlineText={t('gwRule.offline')}
              testId="gw-bind-pick"
            />
          </Form.Item>
          {problem ? <Alert type="error" content={problem} /> : null}
        </Form>
      )}
    </Modal>
  );
}
