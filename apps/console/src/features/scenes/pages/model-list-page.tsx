import { Form, Input, Message, Modal } from '@arco-design/web-react';
import type { ModelDocument } from '@cellhub/contract/scenes';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useLocale } from '../../../lib/i18n';
import { useCreateModel } from '../api';
import { SceneList } from '../components/scene-list';
import locale from '../locale';
import { emptyDoc } from '../scene-editor-model';
import { saveError } from './scene-detail-page';

/** /scene/model/list — reusable layouts bound to slots. */
export default function ModelListPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<{ name: string; remark?: string }>();
  const create = useCreateModel();
  return (
    <>
      <SceneList area="model" onCreate={() => setOpen(true)} />
      <Modal
        title={t('scene.model.create')}
        visible={open}
        confirmLoading={create.isPending}
        onCancel={() => setOpen(false)}
        onOk={async () => {
          const v = await form.validate();
          try {
            const m = await create.mutateAsync({
              name: v.name,
              remark: v.remark ?? '',
              slots: [{ name: 'device1', label: '', product_key: undefined, template_id: undefined }].slice(
                0,
                0,
              ),
              document: emptyDoc(1920, 1080) as unknown as ModelDocument,
            });
            setOpen(false);
            void navigate(`/scene/model/detail/${m.id}`);
          } catch (e) {
            Message.error(saveError(e, t));
          }
        }}
      >
        <Form form={form} layout="vertical">
          <Form.Item label={t('scene.col.name')} field="name" rules={[{ required: true, maxLength: 64 }]}>
            <Input maxLength={64} data-testid="model-name" />
          </Form.Item>
          <Form.Item label={t('scene.col.remark')} field="remark">
            <Input.TextArea maxLength={200} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
