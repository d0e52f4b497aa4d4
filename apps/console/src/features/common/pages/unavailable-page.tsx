import { Button, Card, Empty } from '@arco-design/web-react';
import { IconTool } from '@arco-design/web-react/icon';
import { DEFAULT_ROUTE_PATH } from '@cellhub/contract/routes';
import { useLocation, useNavigate } from 'react-router';
import { PageContainer } from '../../../components/page-container';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { findRoute } from '../route-lookup';
import styles from './unavailable-page.module.css';

/** Stands in for the pages whose areas come with later releases: says what the area will do, honestly. */
export default function UnavailablePage() {
  const t = useLocale(locale);
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const found = findRoute(pathname);
  const areaKey = `unavailable.area.${found?.group.name ?? 'default'}`;
  const description = t(areaKey) === areaKey ? t('unavailable.area.default') : t(areaKey);

  return (
    <PageContainer>
      <Card bordered={false} className={styles.card} title={found ? t(found.route.meta.locale) : undefined}>
        <div className={styles.empty}>
          <Empty
            icon={<IconTool className={styles.icon} />}
            description={
              <div>
                <div className={styles.title}>{t('unavailable.title')}</div>
                <div className={styles.desc}>{description}</div>
                <Button type="primary" onClick={() => void navigate(DEFAULT_ROUTE_PATH)}>
                  {t('unavailable.back')}
                </Button>
              </div>
            }
          />
        </div>
      </Card>
    </PageContainer>
  );
}
