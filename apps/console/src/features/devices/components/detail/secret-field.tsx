import { Button, Space, Tooltip } from '@arco-design/web-react';
import { IconCopy, IconEye, IconEyeInvisible } from '@arco-design/web-react/icon';
import { useState } from 'react';
import { useLocale } from '../../../../lib/i18n';
import { toast } from '../../../../lib/toast';
import locale from '../../locale/detail-index';
import { copyText } from './copy-text';

/** The device secret: masked until revealed; copying works either way. */
export default function SecretField({ secret }: { secret: string }) {
  const t = useLocale(locale);
  const [shown, setShown] = useState(false);
  return (
    <Space size={4} data-testid="device-secret">
      <code style={{ fontFamily: 'var(--font-mono, monospace)', wordBreak: 'break-all' }}>
        {shown ? secret : '•'.repeat(16)}
      </code>
      <Tooltip content={t(shown ? 'deviceDetail.secret.hide' : 'deviceDetail.secret.reveal')}>
        <Button
          size="mini"
          type="text"
          aria-label={t(shown ? 'deviceDetail.secret.hide' : 'deviceDetail.secret.reveal')}
          icon={shown ? <IconEyeInvisible /> : <IconEye />}
          onClick={() => setShown((s) => !s)}
        />
      </Tooltip>
      <Tooltip content={t('deviceDetail.copy')}>
        <Button
          size="mini"
          type="text"
          aria-label={t('deviceDetail.copy')}
          icon={<IconCopy />}
          onClick={() =>
            // copyText never rejects: it answers whether the text reached the clipboard.
            void copyText(secret).then((ok) =>
              toast(ok ? 'success' : 'error', t(ok ? 'deviceDetail.copied' : 'deviceDetail.copyFailed')),
            )
          }
        />
      </Tooltip>
    </Space>
  );
}
