import { Button, Card, Result } from '@arco-design/web-react';
import { useNavigate } from 'react-router';
import { DEFAULT_ROUTE_PATH } from '@cellhub/contract/routes';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import styles from './exception-view.module.css';

/** One exception screen: Arco's own illustration for the status, a line of text and the way out. */
export default function ExceptionView({ status, retry }: { status: '403' | '404' | '500'; retry?: boolean }) {
  const t = useLocale(locale);
  const navigate = useNavigate();
  // With no history in this tab (a pasted link), "back" goes to the Workplace instead of leaving the console.
  const back = () => void (window.history.length > 1 ? navigate(-1) : navigate(DEFAULT_ROUTE_PATH));
  return (
    <PageContainer>
      <Card bordered={false} className={styles.card}>
        <Result
          className={styles.result}
          status={status}
          subTitle={t(`exception.${status}.message`)}
          extra={[
            retry && (
              <Button key="retry" onClick={() => window.location.reload()} style={{ marginRight: 16 }}>
                {t('exception.retry')}
              </Button>
            ),
            <Button key="back" type="primary" onClick={back}>
              {t('exception.back')}
            </Button>,
          ]}
        />
      </Card>
    </PageContainer>
  );
}
