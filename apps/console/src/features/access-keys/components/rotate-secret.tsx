import type { AccessKeyRotated } from '@cellhub/contract/access-keys';
import { Modal } from '@arco-design/web-react';
import { useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import { useRotateAccessKey } from '../api';
import locale from '../locale';
import { SecretOnce } from './secret-once';

/**
 * Rotating a secret: `rotate(ak)` (called once the user confirmed) asks the server for a new secret, and `modal`
 * shows it once. The modal closes only through "I have saved it, close", never by the mask or Esc.
 */
export function useRotateSecret() {
  const t = useLocale(locale);
  const mutation = useRotateAccessKey();
  const [shown, setShown] = useState<AccessKeyRotated | null>(null);
  const rotate = async (ak: string) => {
    const result = await mutation.mutateAsync(ak);
    setShown(result);
  };
  const modal = (
    <Modal
      title={t('accessKey.rotate.title')}
      visible={shown !== null}
      footer={null}
      closable={false}
      maskClosable={false}
      escToExit={false}
      unmountOnExit
      style={{ width: 600 }}
    >
      {shown && (
        <SecretOnce
          accessKey={shown.access_key}
          secret={shown.secret}
          action={{ label: t('accessKey.secret.close'), onClick: () => setShown(null) }}
        />
      )}
    </Modal>
  );
  return { rotate, modal };
}
