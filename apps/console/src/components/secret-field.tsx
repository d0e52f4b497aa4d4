import { Button, Space, Tooltip } from '@arco-design/web-react';
import { IconCopy, IconEye, IconEyeInvisible } from '@arco-design/web-react/icon';
import { useState, type ReactNode } from 'react';
import { useLocale } from '../lib/i18n';
import { toast } from '../lib/toast';
import { copyText } from './copy-text';

/**
 * A secret (device, product) shown masked until revealed; copying works either way. `extra` holds the owner's own
 * actions beside it (replacing a product secret). `testId` names the text itself.
 */
export function SecretField({
  secret,
  testId,
  extra,
}: {
  secret: string;
  testId?: string;
  extra?: ReactNode;
}) {
  const t = useLocale();
  const [shown, setShown] = useState(false);
  const toggle = t(shown ? 'common.secret.hide' : 'common.secret.reveal');
  return (
    <Space size={4} wrap>
      <code
        data-testid={testId}
        style={{ fontFamily: 'var(--font-mono, monospace)', wordBreak: 'break-all' }}
      >
        {shown ? secret : '•'.repeat(Math.min(Math.max(secret.length, 8), 24))}
      </code>
      <Tooltip content={toggle}>
        <Button
          size="mini"
          type="text"
          aria-label={toggle}
          icon={shown ? <IconEyeInvisible /> : <IconEye />}
          onClick={() => setShown((s) => !s)}
        />
      </Tooltip>
      <Tooltip content={t('common.copy')}>
        <Button
          size="mini"
          type="text"
          aria-label={t('common.copy')}
          icon={<IconCopy />}
          onClick={() =>
            // copyText never rejects: it answers whether the text reached the clipboard.
            void copyText(secret).then((ok) =>
              toast(ok ? 'success' : 'error', t(ok ? 'common.copied' : 'common.copyFailed')),
            )
          }
        />
      </Tooltip>
      {extra}
    </Space>
  );
}
