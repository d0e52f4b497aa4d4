import { Card } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { ResultPage } from '../../../components/result-page/result-page';
import { useLocale } from '../../../lib/i18n';
import { useRole } from '../../../lib/user';
import { ApplicationForm } from '../components/application-form';
import styles from '../components/applications.module.css';
import locale from '../locale';

/** Admins create an application, then land on its version page to upload the first package. */
export default function ApplicationCreatePage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  const role = useRole();
  // The page opens to any role (seed), but only admins may publish: others are told so rather than refused later.
  if (role === 'user') return <ResultPage problem="forbidden" back="/application/list" />;
  return (
    <PageContainer>
      <Card bordered={false} className={styles.formCard} title={t('application.form.createTitle')}>
        <ApplicationForm
          onSaved={(saved) => void navigate(`/application/version/${saved.id}`)}
          onCancel={() => void navigate('/application/list')}
        />
      </Card>
    </PageContainer>
  );
}
