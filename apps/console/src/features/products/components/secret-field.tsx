import { Button, Message, Popconfirm } from '@arco-design/web-react';
import { IconRefresh } from '@arco-design/web-react/icon';
import { SecretField } from '../../../components/secret-field';
import type { Translate } from '../../../lib/i18n';
import { useRotateSecret } from '../api';

/** The product secret: the shared secret field, and replacing it after a confirmation. */
export default function ProductSecretField({
  productKey,
  secret,
  t,
}: {
  productKey: string;
  secret: string;
  t: Translate;
}) {
  const rotate = useRotateSecret();
  return (
    <SecretField
      secret={secret}
      testId="product-secret"
      extra={
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
      }
    />
  );
}
