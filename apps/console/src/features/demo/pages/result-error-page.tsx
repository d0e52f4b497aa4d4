import { Button, Card, Link, Result, Typography } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';
import styles from './demo.module.css';

export default function ResultErrorPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  return (
    <PageContainer>
      <DemoNotice />
      <Card bordered={false}>
        <Result
          status="error"
          title={t('result.error.title')}
          subTitle={t('result.error.sub')}
          extra={[
            <Button key="back" style={{ marginRight: 16 }} onClick={() => void navigate(-1)}>
              {t('result.back')}
            </Button>,
            <Button key="retry" type="primary" onClick={() => void navigate('/form/step')}>
              {t('result.retry')}
            </Button>,
          ]}
        />
        <div className={styles.panel}>
          <Typography.Title heading={6}>{t('result.error.detail')}</Typography.Title>
          <Typography.Paragraph>
            1. {t('result.error.line1')}
            <Link>{t('result.error.link1')}</Link>
          </Typography.Paragraph>
          <Typography.Paragraph>
            2. {t('result.error.line2')}
            <Link>{t('result.error.link2')}</Link>
          </Typography.Paragraph>
        </div>
      </Card>
    </PageContainer>
  );
}
