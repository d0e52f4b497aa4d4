import { Alert, Button, Card, Form, Input, Select, Space, Tag, Typography } from '@arco-design/web-react';
import {
  type CommandParam,
  type DeviceCommandGroup,
  type GroupCommandItem,
  renderCommand,
  renderParam,
  replyMatches,
} from '@cellhub/contract/command-groups';
import type { CommandItem, DeviceDetail } from '@cellhub/contract/devices';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useLocale } from '../../../../lib/i18n';
import { ApiError, http } from '../../../../lib/request';
import { toast } from '../../../../lib/toast';
import { detailKeys } from '../../detail-api';
import detailLocale from '../../locale/detail-index';
import locale from './command-groups-card.locale';
import own from './command-groups-card.module.css';
import styles from './detail.module.css';

/**
 * The command groups of the device's product (modules/command-groups, docs/product-tooling.md): pick a predefined
 * command, fill its parameters (each checked as you type with the contract's rules, the same the server applies),
 * see the command it renders, send it. Shown to whoever may control the device; the server answers 10108 to a
 * view-only share, and then (or when the product has no groups) the card is not shown at all.
 */
export default function CommandGroupsCard({ d }: { d: DeviceDetail }) {
  const t = useLocale(locale);
  const qc = useQueryClient();
  const sn = d.sn;
  const groups = useQuery({
    queryKey: [...detailKeys.all(sn), 'command-groups'],
    queryFn: () =>
      http.get<DeviceCommandGroup[]>(`/api/devices/${encodeURIComponent(sn)}/command-groups`, {
        silent: true,
      }),
    retry: false,
  });
  const [cmdId, setCmdId] = useState<number | undefined>();
  const [values, setValues] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [lastId, setLastId] = useState<string | undefined>();

  const commands = useMemo(() => (groups.data ?? []).flatMap((g) => g.commands), [groups.data]);
  const cmd = commands.find((c) => c.id === cmdId);

  // The history query of this card: refreshed with the panel's on every device.command event (same key prefix).
  const history = useQuery({
    queryKey: [...detailKeys.commands(sn), 'command-groups-last'],
    queryFn: () =>
      http.list<CommandItem>(`/api/devices/${encodeURIComponent(sn)}/commands`, { current: 1, per_page: 20 }),
    enabled: lastId !== undefined,
    // The device.command event refreshes it; while the command waits for its reply it is also polled, so a
    // missed event (a socket reconnecting) cannot leave it waiting for ever.
    refetchInterval: (q) => {
      const item = q.state.data?.data.find((c) => c.id === lastId);
      return item && (item.status === 'sent' || item.status === 'pending') ? 2000 : false;
    },
  });
  const last = history.data?.data.find((c) => c.id === lastId);
  const lastCmd = last?.command_ref ? commands.find((c) => c.id === last.command_ref?.command_id) : undefined;

  const send = useMutation({
    mutationFn: (c: GroupCommandItem) =>
      http.post<CommandItem>(
        `/api/devices/${encodeURIComponent(sn)}/command-groups/commands/${c.id}/send`,
        { params: values },
        { silent: true },
      ),
    onSuccess: (sent) => {
      setLastId(sent.id);
      void qc.invalidateQueries({ queryKey: detailKeys.commands(sn) });
    },
  });

  if (!groups.data || commands.length === 0) return null;

  const problemOf = (p: CommandParam): string | undefined => {
    if (!cmd) return undefined;
    const r = renderParam(p, values[p.name], cmd.type);
    return 'problem' in r ? reasonText(r.problem.reason) : undefined;
  };
  function reasonText(reason: string): string {
    const key = `problem.${reason}`;
    const text = t(key);
    return text === key ? t('problem.other') : text;
  }
  const rendered = cmd ? renderCommand(cmd, values) : undefined;

  const submit = async () => {
    if (!cmd) return;
    setTouched(Object.fromEntries(cmd.params.map((p) => [p.name, true])));
    if (!rendered || rendered.problems.length > 0) return;
    try {
      await send.mutateAsync(cmd);
      toast('success', t('cg.sent'));
    } catch (e) {
      if (!(e instanceof ApiError) || e.httpStatus === 403) return;
      toast('error', e.code === 20401 ? t('cg.offline') : e.message);
    }
  };

  return (
    <Card bordered={false} title={t('cg.title')} data-testid="command-groups-card">
      <Space direction="vertical" size={12} style={{ width: '100%' }}>
        <Select
          placeholder={t('cg.command.placeholder')}
          style={{ maxWidth: 420 }}
          value={cmdId}
          data-testid="cg-command"
          onChange={(v: number) => {
            setCmdId(v);
            setValues({});
            setTouched({});
          }}
        >
          {groups.data.map((g) => (
            <Select.OptGroup key={g.id} label={g.name}>
              {g.commands.map((c) => (
                <Select.Option key={c.id} value={c.id}>
                  {c.name}
                </Select.Option>
              ))}
            </Select.OptGroup>
          ))}
        </Select>
        {cmd && (
          <>
            {cmd.description && <Typography.Text type="secondary">{cmd.description}</Typography.Text>}
            <Form layout="inline" className={styles.commandForm} onSubmit={() => void submit()}>
              {cmd.params.length === 0 && (
                <Typography.Text type="secondary">{t('cg.noParams')}</Typography.Text>
              )}
              {cmd.params.map((p) => {
                const problem = touched[p.name] ? problemOf(p) : undefined;
                return (
                  <Form.Item
                    key={p.name}
                    label={p.label || p.name}
                    validateStatus={problem ? 'error' : undefined}
                    help={problem ?? hint(p, t)}
                  >
                    {p.type === 'enum' ? (
                      <Select
                        style={{ width: 180 }}
                        value={values[p.name]}
                        data-testid={`cg-param-${p.name}`}
                        options={p.options}
                        onChange={(v: string) => {
                          setValues((s) => ({ ...s, [p.name]: v }));
                          setTouched((s) => ({ ...s, [p.name]: true }));
                        }}
                      />
                    ) : (
                      <Input
                        style={{ width: 180 }}
                        className={p.type === 'hex' ? styles.mono : undefined}
                        value={values[p.name] ?? ''}
                        data-testid={`cg-param-${p.name}`}
                        onChange={(v) => setValues((s) => ({ ...s, [p.name]: v }))}
                        onBlur={() => setTouched((s) => ({ ...s, [p.name]: true }))}
                      />
                    )}
                  </Form.Item>
                );
              })}
              <Form.Item>
                <Button type="primary" htmlType="submit" loading={send.isPending} data-testid="cg-send">
                  {t('cg.send')}
                </Button>
              </Form.Item>
            </Form>
            <Space size={16} wrap>
              <span>
                {t('cg.preview')}:{' '}
                <Tag className={styles.mono} data-testid="cg-preview">
                  {rendered && rendered.problems.length === 0 ? rendered.data : cmd.data}
                </Tag>
              </span>
              {cmd.reply_pattern && (
                <span>
                  {t('cg.expect')}: <Tag className={styles.mono}>{cmd.reply_pattern}</Tag>
                </span>
              )}
              <Typography.Text type="secondary">{t('cg.timeout', { n: cmd.timeout_s })}</Typography.Text>
            </Space>
          </>
        )}
        {last && <LastResult last={last} pattern={lastCmd?.reply_pattern ?? ''} t={t} />}
      </Space>
    </Card>
  );
}

function hint(p: CommandParam, t: (k: string, v?: Record<string, string | number>) => string) {
  if ((p.type === 'int' || p.type === 'number') && (p.min !== undefined || p.max !== undefined))
    return t('cg.range', { range: `${p.min ?? '…'} – ${p.max ?? '…'}` });
  if (p.type === 'hex') return t('cg.bytes', { n: p.bytes });
  if (p.type === 'string') return t('cg.maxLength', { n: p.max_length });
  return undefined;
}

/** The last command sent from here: its reply and whether it matches the command's expected pattern. */
function LastResult({ last, pattern, t }: { last: CommandItem; pattern: string; t: (k: string) => string }) {
  const td = useLocale(detailLocale);
  const status = td(`deviceDetail.cmd.status.${last.status}`);
  if (last.status === 'sent' || last.status === 'pending')
    return <Alert type="info" content={`${last.command_ref?.name ?? ''} · ${t('cg.waiting')}`} />;
  const match = last.status === 'replied' ? replyMatches(pattern, last.reply) : undefined;
  const type = last.status !== 'replied' ? 'warning' : match === false ? 'error' : 'success';
  const verdict = match === undefined ? '' : ` · ${match ? t('cg.match') : t('cg.mismatch')}`;
  return (
    <Alert
      type={type}
      data-testid="cg-last"
      content={`${t('cg.last')}: ${last.command_ref?.name ?? ''} → ${status}${last.reply ? ` · ${last.reply}` : ''}${verdict}`}
    />
  );
}

/** The predefined command a history row came from, on its own line above the data (wraps: names can be long). */
export function CommandRefTag({ c }: { c: CommandItem }) {
  if (!c.command_ref) return null;
  return (
    <div className={own.commandRef} data-testid={`command-ref-${c.id}`}>
      {c.command_ref.group} / {c.command_ref.name}
    </div>
  );
}
