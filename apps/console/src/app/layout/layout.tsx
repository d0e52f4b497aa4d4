/**
 * The signed-in frame (seed sections 2 and 9): fixed navbar, left menu (or top menu, or a drawer on mobile),
 * tab bar, breadcrumb, content on the grey fill, footer, and the settings drawer.
 */
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { Outlet } from 'react-router';
import { Drawer, Layout as ArcoLayout } from '@arco-design/web-react';
import { IconMenuFold, IconMenuUnfold } from '@arco-design/web-react/icon';
import { DEFAULT_ROUTE_NAME } from '@cellhub/contract/routes';
import { useLocale } from '../../lib/i18n';
import { getSettings, updateSettings, useSettings } from '../../lib/settings';
import { useCurrentRoute } from '../current-route';
import { applyThemeColor } from '../theme-color';
import { Navbar } from './navbar';
import { PageBreadcrumb } from './page-breadcrumb';
import { SideMenu } from './side-menu';
import { TabBar } from './tab-bar';
import './layout.css';

// The settings drawer (colour picker, number inputs, switches) is fetched the first time it is wanted: opened from
// the navbar gear, or shown as the fixed button when the navbar is hidden. It then stays mounted (closing animates).
const SettingsDrawer = lazy(() => import('./settings-drawer').then((m) => ({ default: m.SettingsDrawer })));

const NAVBAR_HEIGHT = 60;
const COLLAPSED_WIDTH = 48;
/** Below this width the console switches to its mobile form (Arco's `lg` breakpoint, as in the reference). */
const MOBILE_BREAKPOINT = 992;
/** Pages that draw their own header instead of a breadcrumb (the reference Workplace has none). */
const NO_BREADCRUMB = new Set([DEFAULT_ROUTE_NAME]);

function useResponsiveDevice() {
  useEffect(() => {
    const apply = () => {
      const mobile = window.innerWidth < MOBILE_BREAKPOINT;
      const s = getSettings();
      if ((s.device === 'mobile') !== mobile) {
        updateSettings({ device: mobile ? 'mobile' : 'desktop', hideMenu: mobile });
      }
    };
    apply();
    window.addEventListener('resize', apply);
    return () => window.removeEventListener('resize', apply);
  }, []);
}

function useThemeColor() {
  const { themeColor, theme } = useSettings();
  useEffect(() => {
    applyThemeColor(themeColor, theme);
  }, [themeColor, theme]);
}

export default function Layout({ children }: { children?: ReactNode }) {
  useResponsiveDevice();
  useThemeColor();
  const t = useLocale();
  const settings = useSettings();
  const current = useCurrentRoute();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [settingsWanted, setSettingsWanted] = useState(false);
  if (!settingsWanted && (settings.globalSettings || !settings.navbar)) setSettingsWanted(true);

  const mobile = settings.device === 'mobile';
  const showSider = settings.menu && !settings.topMenu && !settings.hideMenu && !mobile;
  const collapsed = settings.menuCollapse;
  const siderWidth = collapsed ? COLLAPSED_WIDTH : settings.menuWidth;
  const contentStyle = {
    paddingLeft: showSider ? siderWidth : 0,
    paddingTop: settings.navbar ? NAVBAR_HEIGHT : 0,
  };

  return (
    <ArcoLayout className="layout">
      {settings.navbar && (
        <div className="layout-navbar">
          <Navbar onOpenMenuDrawer={() => setDrawerOpen(true)} />
        </div>
      )}
      {showSider && (
        <ArcoLayout.Sider
          className="layout-sider"
          width={settings.menuWidth}
          collapsedWidth={COLLAPSED_WIDTH}
          collapsed={collapsed}
          collapsible
          trigger={null}
          style={{ paddingTop: settings.navbar ? NAVBAR_HEIGHT : 0 }}
        >
          <div className="layout-menu-wrapper" data-testid="side-menu">
            <SideMenu collapse={collapsed} />
          </div>
          <button
            type="button"
            className="layout-collapse-btn"
            aria-label={collapsed ? 'expand menu' : 'collapse menu'}
            onClick={() => updateSettings({ menuCollapse: !collapsed })}
          >
            {collapsed ? <IconMenuUnfold /> : <IconMenuFold />}
          </button>
        </ArcoLayout.Sider>
      )}
      {mobile && settings.menu && !settings.topMenu && (
        <Drawer
          className="layout-menu-drawer"
          visible={drawerOpen}
          placement="left"
          footer={null}
          closable={false}
          maskClosable
          width={Math.min(settings.menuWidth, 280)}
          title={null}
          onCancel={() => setDrawerOpen(false)}
        >
          <SideMenu onNavigate={() => setDrawerOpen(false)} />
        </Drawer>
      )}
      <ArcoLayout className="layout-content" style={contentStyle}>
        {settings.tabBar && (
          <div className="layout-tab-bar" style={{ top: settings.navbar ? NAVBAR_HEIGHT : 0 }}>
            <TabBar current={current} />
          </div>
        )}
        <ArcoLayout.Content className="layout-page">
          {!NO_BREADCRUMB.has(current?.name ?? '') && <PageBreadcrumb name={current?.name} />}
          {children ?? <Outlet />}
        </ArcoLayout.Content>
        {settings.footer && (
          <ArcoLayout.Footer className="layout-footer" data-testid="layout-footer">
            {t('footer.text')}
          </ArcoLayout.Footer>
        )}
      </ArcoLayout>
      {settingsWanted && (
        <Suspense fallback={null}>
          <SettingsDrawer />
        </Suspense>
      )}
    </ArcoLayout>
  );
}
