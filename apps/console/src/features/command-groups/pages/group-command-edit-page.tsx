import {
  checkCommandDefinition,
  COMMAND_TIMEOUT_S_DEFAULT,
  COMMAND_TIMEOUT_S_MAX,
  type CommandParam,
  type CommandProblem,
  type GroupCommandItem,
} from '@cellhub/contract/command-groups';
import type { CommandType } from '@cellhub/contract/protocol';
import { Button, Card, Form, Input, InputNumber, Message, Radio, Space } from '@arco-design/web-react';
import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { isRecordId, recordState } from '../../../components/result-page/result-page';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useCommandGroup, useSaveGroupCommand } from '../api';
import { ParamFields, type ParamValues } from '../components/param-fields';
import locale from '../locale';
import { problemText } from '../problem-text';
import styles from './command-groups.module.css';

interface Values {
  name: string;
  type: CommandType;
  data: string;
  params: ParamValues[];
  reply_pattern: string;
  timeout_s: number;
  description: string;
}

/** The form's parameter as the contract's definition: only the fields of its type. */
export function toParam(p: ParamValues, commandType: CommandType): CommandParam {
  const name = (p.name ?? '').trim();
  const label = (p.label ?? '').trim();
  const num = (v: number | undefined | null) => (typeof v === 'number' ? v : undefined);
  const drop = <T extends object>(o: T) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
  switch (p.type) {
    case 'int':
      return drop({
        name,
        label,
        type: 'int',
        min: num(p.min),
        max: num(p.max),
        bytes: commandType === 'hex' ? num(p.bytes) : undefined,
      });
    case 'number':
      return drop({ name, label, type: 'number', min: num(p.min), max: num(p.max) });
    case 'string':
      return { name, label, type: 'string', max_length: num(p.max_length) ?? 64, pattern: p.pattern ?? '' };
    case 'enum':
      return { name, label, type: 'enum', options: p.options ?? [] };
    case 'hex':
      return { name, label, type: 'hex', bytes: num(p.bytes) ?? 1 };
  }
}

const toValues = (c: GroupCommandItem): Partial<Values> => ({
  name: c.name,
  type: c.type,
  data: c.data,
  params: c.params.map((p) => ({ ...p })),
  reply_pattern: c.reply_pattern,
  timeout_s: c.timeout_s,
  description: c.description,
});

/**
 * /product/command_group/detail/:id/command/create and .../edit/:cmdId: a predefined command. The definition is
 * checked here with the contract's own rules before it is sent, and the server's refusal (same rules) lands under
 * the same fields.
 */
export default function GroupCommandEditPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const params = useParams();
  const groupId = Number(params.id);
  const cmdId = params.cmdId ? Number(params.cmdId) : undefined;
  const load = useCommandGroup(isRecordId(groupId) ? groupId : undefined);
  const save = useSaveGroupCommand(groupId);
  const [form] = Form.useForm<Values>();
  const type = (Form.useWatch('type', form) as CommandType | undefined) ?? 'hex';
  const current = cmdId === undefined ? undefined : load.data?.commands.find((c) => c.id === cmdId);
  const back = `/product/command_group/detail/${groupId}`;

  useEffect(() => {
    if (current) form.setFieldsValue(toValues(current));
  }, [current, form]);

  /** Puts each problem under its field: `params.<name>` under that parameter's name. */
  const showProblems = (problems: CommandProblem[], list: ParamValues[]) => {
    const errors: Record<string, { error: { message: string } }> = {};
    for (const p of problems) {
      let field = p.field;
      if (field.startsWith('params.')) {
        const i = list.findIndex((x) => (x.name ?? '').trim() === field.slice(7));
        field = i >= 0 ? `params[${i}].name` : 'data';
      }
      const text = problemText(t, p.reason);
      const before = errors[field]?.error.message;
      errors[field] = { error: { message: before ? `${before}; ${text}` : text } };
    }
    form.setFields(errors);
  };

  const submit = async () => {
    const values = await form.validate().catch(() => undefined);
    if (!values) return;
    const list = values.params ?? [];
    const body = {
      name: values.name,
      type: values.type,
      data: values.type === 'hex' ? (values.data ?? '').replace(/\s+/g, '') : (values.data ?? ''),
      params: list.map((p) => toParam(p, values.type)),
      reply_pattern: values.reply_pattern ?? '',
      timeout_s: values.timeout_s ?? COMMAND_TIMEOUT_S_DEFAULT,
      description: values.description ?? '',
    };
    const problems = checkCommandDefinition(body);
    if (problems.length > 0) {
      showProblems(problems, list);
      return;
    }
    try {
      await save.mutateAsync({ cmdId, body });
      Message.success(t('cmdGroup.saved'));
      void navigate(back);
    } catch (e) {
      if (!(e instanceof ApiError) || e.httpStatus === 403) return;
      if ([90000, 90001, 70003].includes(e.code) && Array.isArray(e.details)) {
        showProblems(
          (e.details as { field: string; message: string }[]).map((d) => ({
            code: 70003,
            field: d.field,
            reason: d.message,
          })),
          list,
        );
      } else Message.error(e.message);
    }
  };

  const state = recordState(load, {
    badId: !isRecordId(groupId) || (cmdId !== undefined && !isRecordId(cmdId)),
    back: '/product/command_group',
    backLabel: t('cmdGroup.back'),
    notFoundTitle: t('cmdGroup.notFound'),
  });
  if (state) return state;
  if (cmdId !== undefined && !current)
    return recordState(
      { isError: true, isLoading: false, data: undefined, error: undefined },
      { back, backLabel: t('cmdGroup.back'), notFoundTitle: t('cmdGroup.notFound'), badId: true },
    );

  return (
    <PageContainer>
      <Card
        bordered={false}
        title={`${load.data?.name ?? ''} · ${cmdId === undefined ? t('cmd.form.createTitle') : t('cmd.form.editTitle')}`}
      >
        <Form<Values>
          form={form}
          layout="vertical"
          initialValues={{
            type: 'hex',
            params: [],
            reply_pattern: '',
            timeout_s: COMMAND_TIMEOUT_S_DEFAULT,
            description: '',
          }}
          onSubmit={() => void submit()}
        >
          <Space size={24} align="start" wrap>
            <Form.Item
              label={t('cmd.form.name')}
              field="name"
              style={{ width: 320 }}
              rules={[{ required: true, message: t('cmdGroup.form.name.required') }]}
            >
              <Input placeholder={t('cmd.form.name.placeholder')} maxLength={64} data-testid="cmd-name" />
            </Form.Item>
            <Form.Item label={t('cmd.form.type')} field="type">
              <Radio.Group type="button" data-testid="cmd-type">
                <Radio value="hex">{t('cmd.type.hex')}</Radio>
                <Radio value="string">{t('cmd.type.string')}</Radio>
              </Radio.Group>
            </Form.Item>
            <Form.Item label={t('cmd.form.timeout')} field="timeout_s" style={{ width: 160 }}>
              <InputNumber min={1} max={COMMAND_TIMEOUT_S_MAX} precision={0} data-testid="cmd-timeout" />
            </Form.Item>
          </Space>
          <Form.Item label={t('cmd.form.data')} field="data" extra={t('cmd.form.data.help')}>
            <Input.TextArea
              data-testid="cmd-data"
              className={styles.mono}
              autoSize={{ minRows: 2, maxRows: 6 }}
              placeholder={t(
                type === 'hex' ? 'cmd.form.data.hexPlaceholder' : 'cmd.form.data.stringPlaceholder',
              )}
            />
          </Form.Item>
          <Form.Item label={t('cmd.form.params')}>
            <ParamFields
              commandType={type}
              typeOf={(i) => (form.getFieldValue('params') as ParamValues[] | undefined)?.[i]?.type}
            />
          </Form.Item>
          <Form.Item label={t('cmd.form.reply')} field="reply_pattern" style={{ maxWidth: 480 }}>
            <Input
              className={styles.mono}
              maxLength={200}
              placeholder={t('cmd.form.reply.placeholder')}
              data-testid="cmd-reply"
            />
          </Form.Item>
          <Form.Item label={t('cmd.form.description')} field="description">
            <Input.TextArea maxLength={200} showWordLimit autoSize={{ minRows: 2, maxRows: 4 }} />
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="cmd-save">
              {t('common.save')}
            </Button>
            <Button onClick={() => void navigate(back)}>{t('common.back')}</Button>
          </Space>
        </Form>
      </Card>
    </PageContainer>
  );
}
