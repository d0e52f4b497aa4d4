import { Checkbox, Link } from '@arco-design/web-react';
import { lazy, Suspense, useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import styles from './login-form.module.css';

const AgreementModal = lazy(() => import('./agreement-modal'));

/** The user agreement box that sign-in and registration require, with both documents one click away. */
export default function AgreementCheckbox({
  checked,
  onChange,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const t = useLocale(locale);
  const [doc, setDoc] = useState<'agreement' | 'privacy' | null>(null);
  return (
    <>
      <Checkbox
        checked={checked}
        onChange={onChange}
        className={styles.agreement}
        data-testid="agreement-checkbox"
      >
        {t('login.form.agreement.prefix')}
        <Link onClick={(e) => (e.preventDefault(), setDoc('agreement'))}>
          {t('login.form.agreement.link')}
        </Link>
        {t('login.form.agreement.and')}
        <Link onClick={(e) => (e.preventDefault(), setDoc('privacy'))}>{t('login.form.privacy.link')}</Link>
      </Checkbox>
      {doc && (
        <Suspense fallback={null}>
          <AgreementModal
            doc={doc}
            onClose={() => setDoc(null)}
            onAgree={() => {
              onChange(true);
              setDoc(null);
            }}
          />
        </Suspense>
      )}
    </>
  );
}
