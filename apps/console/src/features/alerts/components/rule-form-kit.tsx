/**
 * What the trigger and alert-configuration forms share: the name/enable row, the methods and push-mode fields,
 * and how a rule problem (checked before sending, with the server's own function) or a server refusal lands next
 * to its field.
 */
import { ALERT_METHODS, ALERT_PUSH_MODES } from '@cellhub/contract/alerts';
import {
  Checkbox,
  Form,
  type FormInstance,
  Grid,
  Input,
  Message,
  Radio,
  Switch,
} from '@arco-design/web-react';
import { ApiError } from '../../../lib/request';

type Translate = (key: string) => string;
type Fields = Parameters<FormInstance['setFields']>[0];

export function ruleFormErrors(form: FormInstance, t: Translate) {
  const fieldError = (field: string, message: string) =>
    form.setFields({ [field]: { error: { message } } } as Fields);
  return {
    fieldError,
    /** A message set on submit goes away once its field is touched again. */
    clearErrors: (fields: string[]) =>
      form.setFields(Object.fromEntries(fields.map((f) => [f, { error: null }])) as unknown as Fields),
    /** A problem found by the contract's rule check, in the seed's words. */
    showProblem: (problem: { field: string; code: number }) =>
      fieldError(
        problem.field,
        t(problem.code === 10113 ? `alert.rule.10113.${problem.field}` : `alert.rule.${problem.code}`),
      ),
    /** A refusal from the server: next to its field when the form has it, else a toast (403 has its own). */
    showSaveError: (e: unknown, fieldOf: Record<number, string>, formFields: Set<string>) => {
      if (!(e instanceof ApiError) || e.httpStatus === 403) return;
      const detail = Array.isArray(e.details) ? (e.details as { field?: string }[])[0]?.field : undefined;
      const field = fieldOf[e.code] ?? detail;
      if (field && formFields.has(field)) fieldError(field, e.message);
      else Message.error(e.message);
    },
  };
}

export function NameEnableRow({ t, nameTestId }: { t: Translate; nameTestId?: string }) {
  return (
    <Grid.Row gutter={24}>
      <Grid.Col span={16}>
        <Form.Item
          label={t('alert.field.name')}
          field="name"
          rules={[{ required: true, message: t('alert.field.name.required') }]}
        >
          <Input maxLength={64} data-testid={nameTestId} />
        </Form.Item>
      </Grid.Col>
      <Grid.Col span={8}>
        <Form.Item label={t('alert.field.enable')} field="enable" triggerPropName="checked">
          <Switch />
        </Form.Item>
      </Grid.Col>
    </Grid.Row>
  );
}

export function MethodsField({ t, required }: { t: Translate; required?: boolean }) {
  return (
    <Form.Item
      label={t('alert.field.methods')}
      field="methods"
      required={required}
      extra={t('alert.field.methods.wechatHelp')}
    >
      <Checkbox.Group>
        {ALERT_METHODS.map((m) => (
          <Checkbox key={m} value={m}>
            {t(`alert.method.${m}`)}
          </Checkbox>
        ))}
      </Checkbox.Group>
    </Form.Item>
  );
}

export function PushModeField({ t }: { t: Translate }) {
  return (
    <Form.Item label={t('alert.field.pushMode')} field="push_mode">
      <Radio.Group type="button">
        {ALERT_PUSH_MODES.map((m) => (
          <Radio key={m} value={m}>
            {t(`alert.pushMode.${m}`)}
          </Radio>
        ))}
      </Radio.Group>
    </Form.Item>
  );
}
