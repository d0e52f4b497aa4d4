import {
  Button,
  Card,
  Form,
  Input,
  InputNumber,
  Message,
  Radio,
  Select,
  Space,
  Typography,
} from '@arco-design/web-react';
import type { SceneDocument, SceneSlot } from '@cellhub/contract/scenes';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useTemplateList } from '../../data-templates/api';
import { useCreateScene, useModel, useModelList, useSceneFromModel } from '../api';
import { DeviceSelect } from '../components/device-select';
import locale from '../locale';
import { emptyDoc } from '../scene-editor-model';

interface Values {
  name: string;
  remark?: string;
  source: 'blank' | 'model';
  model_id?: number;
  width: number;
  height: number;
}

/** /scene/create — a blank scene, or a model bound to devices slot by slot in one step. */
export default function SceneCreatePage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [form] = Form.useForm<Values>();
  const [source, setSource] = useState<'blank' | 'model'>('blank');
  const [modelId, setModelId] = useState<number>();
  const [bindings, setBindings] = useState<Record<string, string>>({});
  const [slotErrors, setSlotErrors] = useState<Record<string, string>>({});
  const models = useModelList({ current: 1, per_page: 100 });
  const model = useModel(modelId);
  const templates = useTemplateList({ current: 1, per_page: 100 }).data?.data ?? [];
  const templateName = (id: number | undefined) => templates.find((x) => x.id === id)?.name ?? `#${id}`;
  const create = useCreateScene();
  const fromModel = useSceneFromModel();

  const submit = async () => {
    const v = await form.validate();
    setSlotErrors({});
    try {
      if (v.source === 'model') {
        const slots = model.data?.slots ?? [];
        const missing = slots.filter((s) => !bindings[s.name]);
        if (missing.length) {
          setSlotErrors(Object.fromEntries(missing.map((s) => [s.name, t('scene.create.slotRequired')])));
          return;
        }
        const s = await fromModel.mutateAsync({
          model_id: v.model_id!,
          name: v.name,
          remark: v.remark ?? '',
          bindings,
        });
        void navigate(`/scene/detail/${s.id}`);
      } else {
        const s = await create.mutateAsync({
          name: v.name,
          remark: v.remark ?? '',
          document: emptyDoc(v.width, v.height) as unknown as SceneDocument,
        });
        void navigate(`/scene/detail/${s.id}`);
      }
      Message.success(t('scene.create.done'));
    } catch (e) {
      if (e instanceof ApiError && Array.isArray(e.details)) {
        const errs: Record<string, string> = {};
        for (const d of e.details as { field?: string; message?: string }[])
          if (d.field?.startsWith('bindings.')) errs[d.field.slice(9)] = d.message ?? e.message;
        setSlotErrors(errs);
      }
      Message.error(e instanceof ApiError ? e.message : t('scene.saveFailed'));
    }
  };

  return (
    <PageContainer>
      <Card bordered={false} title={t('scene.create.title')}>
        <Form<Values>
          form={form}
          layout="horizontal"
          labelCol={{ span: 5 }}
          wrapperCol={{ span: 14 }}
          style={{ maxWidth: 860 }}
          initialValues={{ source: 'blank', width: 1920, height: 1080 }}
          onValuesChange={(c) => {
            if (c.source) setSource(c.source);
            if ('model_id' in c) {
              setModelId(c.model_id);
              setBindings({});
              setSlotErrors({});
            }
          }}
        >
          <Form.Item
            label={t('scene.col.name')}
            field="name"
            rules={[{ required: true, message: t('scene.create.nameRequired') }]}
          >
            <Input maxLength={64} placeholder={t('scene.create.name.placeholder')} data-testid="scene-name" />
          </Form.Item>
          <Form.Item label={t('scene.col.remark')} field="remark">
            <Input.TextArea maxLength={200} autoSize={{ minRows: 2 }} />
          </Form.Item>
          <Form.Item label={t('scene.create.source')} field="source">
            <Radio.Group type="button">
              <Radio value="blank">{t('scene.create.blank')}</Radio>
              <Radio value="model" data-testid="scene-source-model">
                {t('scene.create.model')}
              </Radio>
            </Radio.Group>
          </Form.Item>
          {source === 'blank' ? (
            <Form.Item label={t('scene.create.size')}>
              <Space>
                <Form.Item field="width" noStyle rules={[{ required: true }]}>
                  <InputNumber min={100} max={10000} suffix="px" style={{ width: 140 }} />
                </Form.Item>
                ×
                <Form.Item field="height" noStyle rules={[{ required: true }]}>
                  <InputNumber min={100} max={10000} suffix="px" style={{ width: 140 }} />
                </Form.Item>
              </Space>
            </Form.Item>
          ) : (
            <>
              <Form.Item
                label={t('scene.create.pickModel')}
                field="model_id"
                rules={[{ required: true, message: t('scene.create.modelRequired') }]}
              >
                <Select
                  showSearch
                  data-testid="scene-model"
                  placeholder={t('scene.create.pickModel.placeholder')}
                  loading={models.isFetching}
                  options={(models.data?.data ?? []).map((m) => ({ value: m.id, label: m.name }))}
                />
              </Form.Item>
              {model.data && (
                <Form.Item label={t('scene.create.bindings')}>
                  {model.data.slots.length === 0 ? (
                    <Typography.Text type="secondary">{t('scene.create.noSlots')}</Typography.Text>
                  ) : (
                    <Space direction="vertical" style={{ width: '100%' }} data-testid="scene-slot-bindings">
                      {model.data.slots.map((s: SceneSlot) => (
                        <div key={s.name}>
                          <Space align="start">
                            <div style={{ width: 140, lineHeight: '32px' }}>
                              {s.label || s.name}
                              <Typography.Text type="secondary" style={{ fontSize: 12, marginLeft: 4 }}>
                                {s.product_key ??
                                  t('scene.slot.templateOf', { name: templateName(s.template_id) })}
                              </Typography.Text>
                            </div>
                            <div style={{ width: 320 }} data-slot={s.name}>
                              <DeviceSelect
                                value={bindings[s.name]}
                                productKey={s.product_key}
                                placeholder={t('scene.prop.device.placeholder')}
                                onChange={(sn) => setBindings((b) => ({ ...b, [s.name]: sn }))}
                              />
                              {slotErrors[s.name] && (
                                <div className="arco-form-message" style={{ color: 'rgb(var(--danger-6))' }}>
                                  {slotErrors[s.name]}
                                </div>
                              )}
                            </div>
                          </Space>
                        </div>
                      ))}
                    </Space>
                  )}
                </Form.Item>
              )}
            </>
          )}
          <Form.Item wrapperCol={{ offset: 5 }}>
            <Space>
              <Button
                type="primary"
                loading={create.isPending || fromModel.isPending}
                onClick={() => void submit()}
                data-testid="scene-create-submit"
              >
                {t('scene.create.submit')}
              </Button>
              <Button onClick={() => void navigate('/scene/list')}>{t('scene.back')}</Button>
            </Space>
          </Form.Item>
        </Form>
      </Card>
    </PageContainer>
  );
}
