import { Button, Card, Result, Steps, Typography } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import DemoNotice from '../components/demo-notice';
import locale from '../locale';
import styles from './demo.module.css';

export default function ResultSuccessPage() {
  const t = useLocale(locale);
  const navigate = useNavigate();
  return (
    <PageContainer>
      <DemoNotice />
      <Card bordered={false}>
        <Result
          status="success"
          title={t('result.success.title')}
          subTitle={t('result.success.sub')}
          extra={[
            <Button key="print" style={{ marginRight: 16 }} onClick={() => window.print()}>
              {t('result.print')}
            </Button>,
            <Button key="list" type="primary" onClick={() => void navigate('/list/search-table')}>
              {t('result.projects')}
            </Button>,
          ]}
        />
        <div className={styles.panel}>
          <Typography.Title heading={6}>{t('result.progress')}</Typography.Title>
          <Steps type="dot" current={2} style={{ marginTop: 24 }}>
            {[1, 2, 3, 4, 5].map((i) => (
              <Steps.Step
                key={i}
                title={t(`result.step${i}`)}
                description={i < 3 ? '2024-05-12 10:00' : undefined}
              />
            ))}
          </Steps>
        </div>
      </Card>
    </PageContainer>
  );
}
