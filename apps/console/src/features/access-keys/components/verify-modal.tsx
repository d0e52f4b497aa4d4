import { Modal } from '@arco-design/web-react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { VerifyPanel } from './verify-panel';

/** The verification of an unverified key from the list, in a modal that closes once it is verified. */
export function VerifyModal({ accessKey, onClose }: { accessKey: string | null; onClose: () => void }) {
  const t = useLocale(locale);
  return (
    <Modal
      title={t('accessKey.verify.title')}
      visible={accessKey !== null}
      footer={null}
      onCancel={onClose}
      unmountOnExit
      style={{ width: 640 }}
    >
      <p style={{ marginTop: 0, color: 'var(--color-text-3)' }}>{t('accessKey.verify.help')}</p>
      {accessKey && <VerifyPanel accessKey={accessKey} onVerified={onClose} />}
    </Modal>
  );
}
