import { Button, Message, Popconfirm, Space, Tooltip } from '@arco-design/web-react';
import { IconCopy, IconEye, IconEyeInvisible, IconRefresh } from '@arco-design/web-react/icon';
import { useState } from 'react';
import type { Translate } from '../../../lib/i18n';
import { useRotateSecret } from '../api';
import styles from '../pages/product.module.css';
import { copyText } from './copy-text';

/** The product secret: hidden until asked, copyable, and replaceable after a confirmation. */
export default function SecretField({
  productKey,
  secret,
  t,
}: {
  productKey: string;
  secret: string;
  t: Translate;
}) {
  const [shown, setShown] = useState(false);
  const rotate = useRotateSecret();
  return (
    <span className={styles.secret}>
      <span className={styles.mono} data-testid="product-secret">
        {shown ? secret : '•'.repeat(Math.min(secret.length, 24))}
      </span>
      <Space size={4}>
        <Tooltip content={shown ? t('product.secret.hide') : t('product.secret.show')}>
          <Button
            size="mini"
            type="text"
            aria-label={shown ? t('product.secret.hide') : t('product.secret.show')}
            icon={shown ? <IconEyeInvisible /> : <IconEye />}
            onClick={() => setShown((s) => !s)}
          />
        </Tooltip>
        <Button
          size="mini"
          type="text"
          icon={<IconCopy />}
          onClick={() =>
            void copyText(secret).then((ok) =>
              ok
                ? Message.success(t('product.secret.copied'))
                : Message.error(t('product.secret.copyFailed')),
            )
          }
        >
          {t('product.secret.copy')}
        </Button>
        <Popconfirm
          title={t('product.secret.rotate.confirm')}
          onOk={() =>
            rotate.mutateAsync(productKey).then(
              () => Message.success(t('product.secret.rotated')),
              () => undefined,
            )
          }
        >
          <Button size="mini" type="text" status="warning" icon={<IconRefresh />} loading={rotate.isPending}>
            {t('product.secret.rotate')}
          </Button>
        </Popconfirm>
      </Space>
    </span>
  );
}
