import { Breadcrumb } from '@arco-design/web-react';
import { IconHome } from '@arco-design/web-react/icon';
import { Link } from 'react-router';
import { DEFAULT_ROUTE_PATH } from '@cellhub/contract/routes';
import { useLocale } from '../../lib/i18n';
import { breadcrumbTrail } from './menu-tree';

/** A home icon plus the translated names of the group and the page (seed section 2). */
export function PageBreadcrumb({ name }: { name: string | undefined }) {
  const t = useLocale();
  const trail = breadcrumbTrail(name);
  if (trail.length === 0) return null;
  return (
    <Breadcrumb className="layout-breadcrumb">
      <Breadcrumb.Item>
        <Link to={DEFAULT_ROUTE_PATH} aria-label={t('common.home')} className="layout-breadcrumb-home">
          <IconHome />
        </Link>
      </Breadcrumb.Item>
      {trail.map((key) => (
        <Breadcrumb.Item key={key}>{t(key)}</Breadcrumb.Item>
      ))}
    </Breadcrumb>
  );
}
