import {
  SN_PREFIX_RULE,
  snsOfRule,
  TASK_QUANTITY_MAX,
  type ProductionTaskBody,
  type ProductionTaskItem,
} from '@cellhub/contract/production';
import {
  Button,
  DatePicker,
  Form,
  Input,
  InputNumber,
  Message,
  Modal,
  Radio,
  Select,
} from '@arco-design/web-react';
import { IconUpload } from '@arco-design/web-react/icon';
import { useEffect, useRef } from 'react';
import ProductSelect from '../../../components/product-select';
import type { Translate } from '../../../lib/i18n';
import { useHwGroupOptions, useSaveTask, useVersionOptions } from '../api';

interface TaskForm {
  name: string;
  product_key: string;
  hw_group_id: number;
  sn_type: 'rule' | 'list';
  quantity?: number;
  prefix?: string;
  digits?: number;
  start?: number;
  sns?: string;
  firmware_version_id?: number;
  planned_date: string;
  note?: string;
}

const today = () => new Date().toISOString().slice(0, 10);

/** The lines of an SN file or text: the first CSV column of each non-empty line, without quotes. */
export const snLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.split(',')[0]!.trim().replace(/^"|"$/g, ''))
    .filter((l) => l.length > 0);

/** Plan or edit (a draft) production task in a dialog. */
export function TaskDialog({
  task,
  visible,
  onClose,
  onSaved,
  t,
}: {
  task?: ProductionTaskItem;
  visible: boolean;
  onClose: () => void;
  onSaved?: (task: ProductionTaskItem) => void;
  t: Translate;
}) {
  const [form] = Form.useForm<TaskForm>();
  const groups = useHwGroupOptions();
  const productKey = Form.useWatch('product_key', form) as string | undefined;
  const versions = useVersionOptions(productKey);
  const save = useSaveTask();
  const file = useRef<HTMLInputElement>(null);
  const watched = Form.useWatch(
    ['sn_type', 'prefix', 'quantity', 'digits', 'start', 'planned_date', 'sns'],
    form,
  ) as Partial<TaskForm> | undefined;
  const values = watched;

  useEffect(() => {
    if (!visible) return;
    form.resetFields();
    form.setFieldsValue(
      task
        ? {
            name: task.name,
            product_key: task.product_key,
            hw_group_id: task.hw_group_id,
            sn_type: task.sn_rule.type,
            quantity: task.quantity,
            prefix: task.sn_rule.prefix,
            digits: task.sn_rule.digits ?? 4,
            start: task.sn_rule.start ?? 1,
            firmware_version_id: task.firmware_version_id ?? undefined,
            planned_date: task.planned_date,
            note: task.note,
          }
        : { sn_type: 'rule', quantity: 20, digits: 4, start: 1, planned_date: today() },
    );
  }, [visible, task, form]);

  const preview = (() => {
    const v = values;
    if (!v || v.sn_type !== 'rule' || !v.prefix || !SN_PREFIX_RULE.test(v.prefix) || !v.quantity) return null;
    const sns = snsOfRule(
      { type: 'rule', prefix: v.prefix, digits: v.digits ?? 4, start: v.start ?? 1 },
      Math.min(v.quantity, TASK_QUANTITY_MAX),
      v.planned_date ?? today(),
    );
    return t('prod.task.preview', { first: sns[0]!, last: sns[sns.length - 1]! });
  })();

  const submit = async () => {
    const v = await form.validate();
    const body: ProductionTaskBody = {
      name: v.name,
      product_key: v.product_key,
      hw_group_id: v.hw_group_id,
      sn_rule:
        v.sn_type === 'rule'
          ? { type: 'rule', prefix: v.prefix!.trim(), digits: v.digits ?? 4, start: v.start ?? 1 }
          : { type: 'list', sns: snLines(v.sns ?? '') },
      ...(v.sn_type === 'rule' ? { quantity: v.quantity } : {}),
      firmware_version_id: v.firmware_version_id ?? null,
      planned_date: v.planned_date,
      note: v.note ?? '',
    };
    const saved = await save.mutateAsync({ id: task?.id, body });
    Message.success(t('prod.task.saved'));
    onClose();
    onSaved?.(saved);
  };

  const readFile = async (f: File | undefined) => {
    if (!f) return;
    const lines = snLines(await f.text());
    form.setFieldValue('sns', lines.join('\n'));
  };

  const snType = values?.sn_type ?? 'rule';
  return (
    <Modal
      title={task ? t('prod.task.edit') : t('prod.task.create')}
      visible={visible}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={onClose}
      confirmLoading={save.isPending}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      style={{ width: 640 }}
      unmountOnExit
    >
      <Form<TaskForm> form={form} layout="horizontal" labelCol={{ span: 6 }} wrapperCol={{ span: 18 }}>
        <Form.Item
          label={t('prod.task.name')}
          field="name"
          rules={[{ required: true, message: t('prod.task.name.required') }]}
        >
          <Input maxLength={64} />
        </Form.Item>
        <Form.Item
          label={t('prod.task.product')}
          field="product_key"
          rules={[{ required: true, message: t('prod.task.product.required') }]}
        >
          <ProductSelect
            known={task ? [{ product_key: task.product_key, name: task.product_name }] : undefined}
            onPick={() => form.setFieldValue('firmware_version_id', undefined)}
          />
        </Form.Item>
        <Form.Item
          label={t('prod.task.group')}
          field="hw_group_id"
          rules={[{ required: true, message: t('prod.task.group.required') }]}
        >
          <Select
            showSearch
            loading={groups.isFetching}
            options={(groups.data?.data ?? []).map((g) => ({ value: g.id, label: g.name }))}
          />
        </Form.Item>
        <Form.Item label={t('prod.task.snRule')} field="sn_type">
          <Radio.Group type="button">
            <Radio value="rule">{t('prod.task.snRule.rule')}</Radio>
            <Radio value="list">{t('prod.task.snRule.list')}</Radio>
          </Radio.Group>
        </Form.Item>
        {snType === 'rule' ? (
          <>
            <Form.Item
              label={t('prod.task.prefix')}
              field="prefix"
              extra={preview}
              rules={[{ required: true, match: SN_PREFIX_RULE, message: t('prod.task.prefix.required') }]}
            >
              <Input maxLength={32} placeholder="DTU" />
            </Form.Item>
            <Form.Item label={t('prod.task.quantity')} field="quantity" rules={[{ required: true }]}>
              <InputNumber min={1} max={TASK_QUANTITY_MAX} precision={0} style={{ width: 160 }} />
            </Form.Item>
            <Form.Item label={t('prod.task.digits')} field="digits">
              <InputNumber min={3} max={8} precision={0} style={{ width: 160 }} />
            </Form.Item>
            <Form.Item label={t('prod.task.start')} field="start">
              <InputNumber min={0} precision={0} style={{ width: 160 }} />
            </Form.Item>
          </>
        ) : (
          <Form.Item
            label={t('prod.task.sns')}
            field="sns"
            rules={[{ required: true, message: t('prod.task.sns.required') }]}
            extra={
              <span>
                <Button size="mini" type="text" icon={<IconUpload />} onClick={() => file.current?.click()}>
                  {t('prod.task.sns.import')}
                </Button>
                {t('prod.task.sns.count', { count: snLines(values?.sns ?? '').length })}
                <input
                  ref={file}
                  type="file"
                  accept=".csv,.txt,text/csv,text/plain"
                  hidden
                  onChange={(e) => void readFile(e.target.files?.[0])}
                />
              </span>
            }
          >
            <Input.TextArea
              autoSize={{ minRows: 4, maxRows: 10 }}
              placeholder={t('prod.task.sns.placeholder')}
            />
          </Form.Item>
        )}
        <Form.Item label={t('prod.task.firmware')} field="firmware_version_id">
          <Select
            allowClear
            placeholder={t('prod.task.firmware.none')}
            loading={versions.isFetching}
            options={(versions.data?.data ?? []).map((v) => ({
              value: v.id,
              label: `${v.firmware_name} ${v.version}`,
            }))}
          />
        </Form.Item>
        <Form.Item
          label={t('prod.task.planned')}
          field="planned_date"
          rules={[{ required: true, message: t('prod.task.planned.required') }]}
        >
          <DatePicker style={{ width: 200 }} />
        </Form.Item>
        <Form.Item label={t('prod.task.note')} field="note">
          <Input.TextArea maxLength={500} autoSize={{ minRows: 1, maxRows: 3 }} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
