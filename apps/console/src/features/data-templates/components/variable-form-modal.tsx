import {
  byteOrdersFor,
  checkVariable,
  DATA_FORMATS,
  DECIMALS_MAX,
  formatsFor,
  FUNCTION_CODES_FOR,
  REGISTER_TYPES,
  REPORT_METHODS,
  SAMPLING_CYCLE_MAX,
  type VariableBody,
  type VariableItem,
  type VariableProblem,
  VARIABLE_ACCESS,
} from '@cellhub/contract/data-templates';
import { PROPERTY_KEY_RULE } from '@cellhub/contract/protocol';
import { Form, Grid, Input, InputNumber, Message, Modal, Select } from '@arco-design/web-react';
import { useEffect } from 'react';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useSaveVariable } from '../api';
import { ACCESS_LABEL_KEYS } from './labels';
import locale from '../locale';

type Values = VariableBody & { byte_order?: string; function_code?: number };

const DEFAULTS: Partial<Values> = {
  register_type: 'holding',
  data_format: 'int16',
  decimals: 0,
  access: 'r',
  report_method: 'cycle',
  sampling_cycle_s: 60,
  capture_formula: '',
  control_formula: '',
  unit: '',
};

/** The problems of the form's values by field, worded for the user (the same checks the server runs). */
export function variableProblems(v: Partial<Values>): VariableProblem[] {
  if (!v.register_type || !v.data_format || v.register_address === undefined || v.register_address === null)
    return [];
  return checkVariable({
    register_type: v.register_type,
    register_address: v.register_address,
    data_format: v.data_format,
    byte_order: (v.byte_order || undefined) as VariableBody['byte_order'],
    access: v.access ?? 'r',
    capture_formula: v.capture_formula ?? '',
    control_formula: v.control_formula ?? '',
    function_code: v.function_code ?? undefined,
  });
}

/** Adds a variable to a slave or edits one; refuses what the server would, field by field, before sending. */
export function VariableFormModal({
  templateId,
  slaveId,
  variable,
  visible,
  onClose,
}: {
  templateId: number;
  slaveId: number;
  variable?: VariableItem;
  visible: boolean;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const save = useSaveVariable(templateId);
  const registerType = Form.useWatch('register_type', form) as Values['register_type'] | undefined;
  const dataFormat = Form.useWatch('data_format', form) as Values['data_format'] | undefined;

  useEffect(() => {
    if (!visible) return;
    form.resetFields();
    form.setFieldsValue(variable ? { ...variable } : { ...DEFAULTS });
  }, [visible, variable, form]);

  const problemText = (p: VariableProblem) =>
    p.code === 80004 ? t('dt.problem.formula', { reason: p.reason }) : t(`dt.problem.${p.reason}`);

  const showProblems = (problems: VariableProblem[]) =>
    form.setFields(
      Object.fromEntries(problems.map((p) => [p.field, { error: { message: problemText(p) } }])),
    );

  const submit = async () => {
    const values = await form.validate();
    const problems = variableProblems(values);
    if (problems.length > 0) {
      showProblems(problems);
      throw new Error('invalid');
    }
    const body: VariableBody = {
      ...values,
      byte_order: (values.byte_order || undefined) as VariableBody['byte_order'],
      function_code: values.function_code ?? undefined,
    };
    try {
      await save.mutateAsync({ slaveId, varId: variable?.id, body });
    } catch (err) {
      if (err instanceof ApiError && err.code === 80006) {
        form.setFields({ tag: { error: { message: t('dt.problem.tag') } } });
      } else if (err instanceof ApiError) {
        const details = (err.details as { field: string; message: string }[] | undefined) ?? [];
        if (details.length > 0 && [80003, 80004, 80005].includes(err.code)) {
          form.setFields(
            Object.fromEntries(details.map((d) => [d.field, { error: { message: d.message } }])),
          );
        } else Message.error(err.message);
      }
      throw err;
    }
    Message.success(t('dt.saved'));
    onClose();
  };

  const formats = registerType ? formatsFor(registerType) : DATA_FORMATS;
  const orders = dataFormat ? byteOrdersFor(dataFormat) : [];
  const codes = registerType ? FUNCTION_CODES_FOR[registerType] : [];
  const { Row, Col } = Grid;
  const half = { span: 12 };

  return (
    <Modal
      title={variable ? t('dt.var.edit') : t('dt.var.add')}
      visible={visible}
      // Refusals are shown on the fields (or toasted by the request layer); the modal stays open.
      onOk={() => void submit().catch(() => undefined)}
      onCancel={onClose}
      confirmLoading={save.isPending}
      style={{ width: 720 }}
      unmountOnExit
    >
      <Form
        form={form}
        layout="vertical"
        data-testid="dt-variable-form"
        onValuesChange={(changed) => {
          // A new register type or format takes the first byte order that fits and the automatic function code.
          if ('register_type' in changed || 'data_format' in changed) {
            const v = form.getFieldsValue();
            if (v.register_type && !formatsFor(v.register_type).includes(v.data_format!))
              form.setFieldValue('data_format', formatsFor(v.register_type)[0]);
            form.setFieldValue('byte_order', undefined);
            form.setFieldValue('function_code', undefined);
          }
        }}
      >
        <Row gutter={16}>
          <Col {...half}>
            <Form.Item
              label={t('dt.var.name')}
              field="name"
              rules={[{ required: true, message: t('dt.var.required') }, { maxLength: 64 }]}
            >
              <Input maxLength={64} data-testid="dt-var-name" />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item
              label={t('dt.var.tag')}
              field="tag"
              extra={t('dt.var.tag.help')}
              rules={[
                { required: true, message: t('dt.var.required') },
                { match: PROPERTY_KEY_RULE, message: t('dt.var.tag.help') },
              ]}
            >
              <Input maxLength={64} data-testid="dt-var-tag" />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.registerType')} field="register_type">
              <Select options={REGISTER_TYPES.map((v) => ({ value: v, label: t(`dt.reg.${v}`) }))} />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item
              label={t('dt.var.registerAddress')}
              field="register_address"
              rules={[{ required: true, message: t('dt.var.required') }]}
            >
              <InputNumber precision={0} data-testid="dt-var-address" />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.dataFormat')} field="data_format">
              <Select options={formats.map((v) => ({ value: v, label: v }))} />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.byteOrder')} field="byte_order">
              <Select
                allowClear
                placeholder={orders[0]}
                options={orders.map((v) => ({ value: v, label: v }))}
              />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.unit')} field="unit" rules={[{ maxLength: 16 }]}>
              <Input maxLength={16} />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.decimals')} field="decimals">
              <InputNumber min={0} max={DECIMALS_MAX} precision={0} />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.access')} field="access">
              <Select options={VARIABLE_ACCESS.map((v) => ({ value: v, label: t(ACCESS_LABEL_KEYS[v]) }))} />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.functionCode')} field="function_code">
              <Select
                allowClear
                placeholder={t('dt.var.functionCode.auto')}
                options={codes.map((c) => ({ value: c, label: String(c).padStart(2, '0') }))}
              />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.capture')} field="capture_formula" extra={t('dt.var.formula.help')}>
              <Input maxLength={200} placeholder="x*0.1" data-testid="dt-var-capture" />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.control')} field="control_formula">
              <Input maxLength={200} placeholder="x*10" />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.report')} field="report_method">
              <Select options={REPORT_METHODS.map((v) => ({ value: v, label: t(`dt.report.${v}`) }))} />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item label={t('dt.var.cycle')} field="sampling_cycle_s">
              <InputNumber min={1} max={SAMPLING_CYCLE_MAX} precision={0} />
            </Form.Item>
          </Col>
        </Row>
      </Form>
    </Modal>
  );
}
