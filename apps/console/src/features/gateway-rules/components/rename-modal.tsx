import { Input, Message, Modal } from '@arco-design/web-react';
import { useEffect, useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { ApiError } from '../../../lib/request';
import { useRenameGatewayRule } from '../api';
import locale from '../locale';

export function RenameModal({
  ruleId,
  name,
  visible,
  onClose,
}: {
  ruleId: number;
  name: string;
  visible: boolean;
  onClose: () => void;
}) {
  const t = useLocale(locale);
  const rename = useRenameGatewayRule(ruleId);
  const [value, setValue] = useState(name);
  useEffect(() => {
    if (visible) setValue(name);
  }, [visible, name]);
  const ok = async () => {
    if (!value.trim()) return Message.error(t('gwRule.form.name.required'));
    try {
      await rename.mutateAsync({ name: value.trim() });
      Message.success(t('gwRule.renamed'));
      onClose();
    } catch (e) {
      if (e instanceof ApiError && e.httpStatus !== 403) Message.error(e.message);
    }
  };
  return (
    <Modal
      title={t('gwRule.rename')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void ok()}
      confirmLoading={rename.isPending}
    >
      <Input
        value={value}
        onChange={setValue}
        maxLength={64}
        placeholder={t('gwRule.form.name.placeholder')}
      />
    </Modal>
  );
}
