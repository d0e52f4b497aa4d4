import { useEffect } from 'react';
import { NOT_FOUND_ROUTE_NAME, REDIRECT_ROUTE_NAME } from '@cellhub/contract/routes';
import { useLocation, useNavigate } from 'react-router';
import { Dropdown, Menu, Tag } from '@arco-design/web-react';
import { IconDown } from '@arco-design/web-react/icon';
import { useLocale } from '../../lib/i18n';
import type { RouteHandle } from '../current-route';
import { closeTabs, HOME_TAB, useTabs, visitTab, type CloseMode } from './tab-store';

export function TabBar({ current }: { current: RouteHandle | undefined }) {
  const t = useLocale();
  const tabs = useTabs();
  const location = useLocation();
  const navigate = useNavigate();
  const fullPath = `${location.pathname}${location.search}`;

  const name = current?.name;
  const locale = current?.meta.locale;
  useEffect(() => {
    // Plumbing routes are not places worth a tab.
    if (!name || !locale || name === NOT_FOUND_ROUTE_NAME || name === REDIRECT_ROUTE_NAME) return;
    visitTab({ name, fullPath, locale });
  }, [name, locale, fullPath]);

  const activeName = name;
  const afterClose = (left: ReturnType<typeof closeTabs>) => {
    if (!left.some((x) => x.name === activeName))
      void navigate(left[left.length - 1]?.fullPath ?? HOME_TAB.fullPath);
  };

  const onAction = (key: string) => {
    if (!activeName) return;
    if (key === 'reload') {
      void navigate(`/redirect${fullPath}`, { replace: true });
      return;
    }
    afterClose(closeTabs(activeName, key as CloseMode));
  };

  return (
    <div className="tab-bar">
      <div className="tab-bar-scroll">
        {tabs.map((tab) => (
          <Tag
            key={tab.name}
            className="tab-bar-tag"
            color={tab.name === activeName ? 'arcoblue' : undefined}
            closable={tab.name !== HOME_TAB.name}
            onClose={() => {
              const left = closeTabs(tab.name, 'current');
              if (tab.name === activeName) afterClose(left);
            }}
            onClick={() => void navigate(tab.fullPath)}
          >
            {t(tab.locale)}
          </Tag>
        ))}
      </div>
      <Dropdown
        trigger="click"
        position="br"
        droplist={
          <Menu onClickMenuItem={onAction}>
            <Menu.Item key="reload">{t('tabBar.reload')}</Menu.Item>
            <Menu.Item key="current">{t('tabBar.closeCurrent')}</Menu.Item>
            <Menu.Item key="left">{t('tabBar.closeLeft')}</Menu.Item>
            <Menu.Item key="right">{t('tabBar.closeRight')}</Menu.Item>
            <Menu.Item key="others">{t('tabBar.closeOthers')}</Menu.Item>
            <Menu.Item key="all">{t('tabBar.closeAll')}</Menu.Item>
          </Menu>
        }
      >
        <button type="button" className="tab-bar-operation" aria-label={t('common.more')}>
          <IconDown />
        </button>
      </Dropdown>
    </div>
  );
}
