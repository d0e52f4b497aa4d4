import { Checkbox, Link, Modal } from '@arco-design/web-react';
import { useState } from 'react';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import styles from './login-form.module.css';

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
      <Checkbox checked={checked} onChange={onChange} className={styles.agreement}>
        {t('login.form.agreement.prefix')}
        <Link onClick={(e) => (e.preventDefault(), setDoc('agreement'))}>
          {t('login.form.agreement.link')}
        </Link>
        {t('login.form.agreement.and')}
        <Link onClick={(e) => (e.preventDefault(), setDoc('privacy'))}>{t('login.form.privacy.link')}</Link>
      </Checkbox>
      <Modal
        title={doc === 'privacy' ? t('login.privacy.title') : t('login.agreement.title')}
        visible={doc !== null}
        onCancel={() => setDoc(null)}
        onOk={() => {
          onChange(true);
          setDoc(null);
        }}
        okText={t('login.agreement.ok')}
        hideCancel
      >
        {doc === 'privacy' ? t('login.privacy.body') : t('login.agreement.body')}
      </Modal>
    </>
  );
}
