import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { Avatar, Button, Dropdown, Menu, Message, Tooltip } from '@arco-design/web-react';
import {
  IconCheck,
  IconFullscreen,
  IconFullscreenExit,
  IconLanguage,
  IconMenuFold,
  IconMoonFill,
  IconNotification,
  IconPoweroff,
  IconSettings,
  IconSunFill,
  IconSwap,
  IconUser,
} from '@arco-design/web-react/icon';
import { Logo } from '../../components/logo';
import { useLocale, useLocaleState } from '../../lib/i18n';
import type { Locale } from '../../lib/locale-store';
import { updateSettings, useSettings } from '../../lib/settings';
import { useLogout, useRoleSwitch, useUserInfo } from '../../lib/user';
import { MessageBell } from './message-bell';
import { SideMenu } from './side-menu';
import { useFullscreen } from './use-fullscreen';

const LANGUAGES: { value: Locale; label: string }[] = [
  { value: 'zh-CN', label: '中文' },
  { value: 'en-US', label: 'English' },
];

function NavButton({
  icon,
  tip,
  onClick,
  label,
}: {
  icon: ReactNode;
  tip?: string;
  label: string;
  onClick?: () => void;
}) {
  const button = (
    <Button
      className="nav-btn"
      type="outline"
      shape="circle"
      icon={icon}
      aria-label={label}
      onClick={onClick}
    />
  );
  return tip ? <Tooltip content={tip}>{button}</Tooltip> : button;
}

export function Navbar({ onOpenMenuDrawer }: { onOpenMenuDrawer: () => void }) {
  const t = useLocale();
  const { locale, setLocale } = useLocaleState();
  const settings = useSettings();
  const { isFullscreen, toggle: toggleFullscreen } = useFullscreen();
  const { data: user } = useUserInfo();
  const { canSwitch, switchRole } = useRoleSwitch();
  const logout = useLogout();
  const navigate = useNavigate();
  const dark = settings.theme === 'dark';

  const onUserMenu = (key: string) => {
    if (key === 'logout') void logout();
    else if (key === 'setting') void navigate('/user/setting');
    else if (key === 'switchRoles') {
      const next = switchRole();
      if (next) Message.success(t('messageBox.switchRoles.success', { role: t(`role.${next}`) }));
    }
  };

  const displayName = user?.nickname || user?.username || '';
  return (
    <div className="navbar">
      <div className="navbar-left">
        <div className="navbar-logo">
          <Logo size={33} />
          <span className="navbar-logo-text">Cellhub</span>
        </div>
        {settings.device === 'mobile' && !settings.topMenu && (
          <Button
            type="text"
            className="navbar-menu-toggle"
            icon={<IconMenuFold />}
            aria-label={t('navbar.menu.open')}
            onClick={onOpenMenuDrawer}
          />
        )}
      </div>
      <div className="navbar-center">
        {settings.topMenu && settings.menu && <SideMenu mode="horizontal" />}
      </div>
      <ul className="navbar-right">
        <li data-testid="navbar-locale">
          <Dropdown
            trigger="click"
            position="br"
            droplist={
              <Menu onClickMenuItem={(key) => setLocale(key as Locale)} selectedKeys={[locale]}>
                {LANGUAGES.map((l) => (
                  <Menu.Item key={l.value}>
                    <span className="navbar-locale-item">
                      {l.label}
                      {l.value === locale && <IconCheck />}
                    </span>
                  </Menu.Item>
                ))}
              </Menu>
            }
          >
            <span>
              <NavButton icon={<IconLanguage />} label={t('navbar.language')} />
            </span>
          </Dropdown>
        </li>
        <li data-testid="navbar-theme">
          <NavButton
            icon={dark ? <IconMoonFill /> : <IconSunFill />}
            label={dark ? t('navbar.theme.toLight') : t('navbar.theme.toDark')}
            tip={dark ? t('navbar.theme.toLight') : t('navbar.theme.toDark')}
            onClick={() => updateSettings({ theme: dark ? 'light' : 'dark' })}
          />
        </li>
        <li data-testid="navbar-messages">
          <MessageBell>
            <NavButton icon={<IconNotification />} label={t('messageBox.tab.message')} />
          </MessageBell>
        </li>
        <li data-testid="navbar-fullscreen">
          <NavButton
            icon={isFullscreen ? <IconFullscreenExit /> : <IconFullscreen />}
            label={isFullscreen ? t('navbar.screen.toExit') : t('navbar.screen.toFull')}
            tip={isFullscreen ? t('navbar.screen.toExit') : t('navbar.screen.toFull')}
            onClick={toggleFullscreen}
          />
        </li>
        <li data-testid="navbar-settings">
          <NavButton
            icon={<IconSettings />}
            label={t('navbar.settings')}
            tip={t('navbar.settings')}
            onClick={() => updateSettings({ globalSettings: true })}
          />
        </li>
        <li data-testid="navbar-user">
          <Dropdown
            trigger="click"
            position="br"
            droplist={
              <Menu onClickMenuItem={onUserMenu}>
                {canSwitch && (
                  <Menu.Item key="switchRoles" data-testid="user-menu-switch-roles">
                    <IconSwap className="dropdown-icon" />
                    {t('navbar.user.switchRoles')}
                  </Menu.Item>
                )}
                <Menu.Item key="setting" data-testid="user-menu-setting">
                  <IconSettings className="dropdown-icon" />
                  {t('navbar.user.setting')}
                </Menu.Item>
                <Menu.Item key="logout" data-testid="user-menu-logout">
                  <IconPoweroff className="dropdown-icon" />
                  {t('navbar.user.logout')}
                </Menu.Item>
              </Menu>
            }
          >
            <Avatar size={32} className="navbar-avatar" aria-label={displayName}>
              {user?.picture ? (
                <img alt={displayName} src={user.picture} />
              ) : displayName ? (
                displayName.slice(0, 1).toUpperCase()
              ) : (
                <IconUser />
              )}
            </Avatar>
          </Dropdown>
        </li>
      </ul>
    </div>
  );
}
