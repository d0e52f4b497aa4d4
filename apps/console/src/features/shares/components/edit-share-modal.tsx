import { Form, Modal } from '@arco-design/web-react';
import type { OutgoingShareItem, ShareRight } from '@cellhub/contract/shares';
import { ExpiryField, expiryToIso, RightField } from '../../../components/share-dialog/share-fields';
import { useLocale } from '../../../lib/i18n';
import { toast } from '../../../lib/toast';
import { useUpdateShare } from '../api';
import locale from '../locale';

interface Values {
  right: ShareRight;
  expires_at?: unknown;
}

/** Changes the right and the expiry of one of my shares (clearing the expiry makes it last). */
export default function EditShareModal({
  share,
  onClose,
}: {
  share: OutgoingShareItem | null;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const [form] = Form.useForm<Values>();
  const update = useUpdateShare();

  const submit = async () => {
    if (!share) return;
    let v: Values;
    try {
      v = await form.validate();
    } catch {
      return;
    }
    try {
      await update.mutateAsync({
        id: share.id,
        body: { right: v.right, expires_at: expiryToIso(v.expires_at) },
      });
      toast('success', t('share.edit.done'));
      onClose();
    } catch {
      // The request layer has shown the refusal.
    }
  };

  return (
    <Modal
      title={t('share.edit.title')}
      visible={share !== null}
      onCancel={onClose}
      onOk={() => void submit()}
      confirmLoading={update.isPending}
      style={{ width: 640 }}
      unmountOnExit
    >
      {share ? (
        <Form<Values>
          key={share.id}
          form={form}
          layout="horizontal"
          labelCol={{ span: 5 }}
          wrapperCol={{ span: 19 }}
          initialValues={{
            right: share.right,
            // An expiry already past is not offered again (the picker refuses past dates): it starts empty.
            expires_at: share.expires_at && !share.expired ? new Date(share.expires_at) : undefined,
          }}
        >
          <Form.Item label={t('share.edit.device')}>
            <span>{share.device_name ? `${share.sn} · ${share.device_name}` : share.sn}</span>
          </Form.Item>
          <Form.Item label={t('share.edit.to')}>
            <span>{share.to_username}</span>
          </Form.Item>
          <RightField />
          <ExpiryField />
        </Form>
      ) : null}
    </Modal>
  );
}
