import { Input } from '@arco-design/web-react';
import type { Translate } from '../../../lib/i18n';

/**
 * A secret field. The server never sends a stored secret back (only the mask), so the field starts empty and says
 * whether one is set; left empty, the save keeps the stored one.
 */
export function SecretInput({
  isSet,
  t,
  id,
  value,
  onChange,
}: {
  isSet: boolean;
  t: Translate;
  id?: string;
  value?: string;
  onChange?: (value: string) => void;
}) {
  return (
    <Input.Password
      id={id}
      value={value}
      onChange={onChange}
      autoComplete="new-password"
      maxLength={512}
      placeholder={isSet ? t('systemSetting.secret.set') : t('systemSetting.secret.unset')}
    />
  );
}
