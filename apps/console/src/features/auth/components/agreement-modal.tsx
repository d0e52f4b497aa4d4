import { Modal } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';

/** Loaded when a document link is clicked, so the dialog code stays out of the sign-in page's first download. */
export default function AgreementModal({
  doc,
  onClose,
  onAgree,
}: {
  doc: 'agreement' | 'privacy';
  onClose: () => void;
  onAgree: () => void;
}) {
  const t = useLocale(locale);
  return (
    <Modal
      title={doc === 'privacy' ? t('login.privacy.title') : t('login.agreement.title')}
      visible
      onCancel={onClose}
      onOk={onAgree}
      okText={t('login.agreement.ok')}
      hideCancel
    >
      {doc === 'privacy' ? t('login.privacy.body') : t('login.agreement.body')}
    </Modal>
  );
}
