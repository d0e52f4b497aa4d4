import { Alert, Button, Checkbox, Space, Typography } from '@arco-design/web-react';
import { useState, type ReactNode } from 'react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import styles from './access-keys.module.css';

/**
 * A secret shown the one time the server sends it (create, rotate): the access key and the secret with copy
 * buttons, the warning that it will not be shown again, and "I have saved it" before `action` may be pressed.
 * The secret stays in this component's props only: once it unmounts, nothing in the console still has it.
 */
export function SecretOnce({
  accessKey,
  secret,
  action,
  extra,
}: {
  accessKey: string;
  secret: string;
  /** The button that leaves, enabled once the box is ticked. */
  action: { label: ReactNode; onClick: () => void };
  extra?: ReactNode;
}) {
  const t = useLocale(locale);
  const [saved, setSaved] = useState(false);
  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }} data-testid="access-key-secret-once">
      <Alert type="warning" title={t('accessKey.secret.title')} content={t('accessKey.secret.warning')} />
      <div className={styles.secretBox}>
        <span className={styles.secretLabel}>{t('accessKey.secret.accessKey')}</span>
        <Typography.Paragraph
          className={styles.secretValue}
          copyable={{ text: accessKey }}
          data-testid="access-key-created-key"
        >
          {accessKey}
        </Typography.Paragraph>
        <span className={styles.secretLabel}>{t('accessKey.secret.secret')}</span>
        <Typography.Paragraph
          className={styles.secretValue}
          copyable={{ text: secret }}
          data-testid="access-key-created-secret"
        >
          {secret}
        </Typography.Paragraph>
      </div>
      <Checkbox checked={saved} onChange={setSaved} data-testid="access-key-saved">
        {t('accessKey.secret.saved')}
      </Checkbox>
      <Space>
        <Button type="primary" disabled={!saved} onClick={action.onClick}>
          {action.label}
        </Button>
        {extra}
      </Space>
    </Space>
  );
}
