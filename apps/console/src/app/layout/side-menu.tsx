import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { Menu } from '@arco-design/web-react';
import { useLocale } from '../../lib/i18n';
import { useSettings } from '../../lib/settings';
import { useRole } from '../../lib/user';
import { useCurrentRoute } from '../current-route';
import { buildMenu, menuSelection, type MenuNode } from './menu-tree';
import { menuIcon } from './menu-icons';

export function SideMenu({
  mode = 'vertical',
  collapse = false,
  onNavigate,
}: {
  mode?: 'vertical' | 'horizontal';
  collapse?: boolean;
  onNavigate?: () => void;
}) {
  const t = useLocale();
  const navigate = useNavigate();
  const role = useRole();
  const { menuFromServer, serverMenu } = useSettings();
  const name = useCurrentRoute()?.name;

  const nodes = useMemo(
    () => buildMenu(role, menuFromServer ? (serverMenu ?? []) : undefined),
    [role, menuFromServer, serverMenu],
  );
  const paths = useMemo(() => {
    const map = new Map<string, string>();
    const walk = (list: MenuNode[]) =>
      list.forEach((n) => {
        map.set(n.name, n.path);
        if (n.children) walk(n.children);
      });
    walk(nodes);
    return map;
  }, [nodes]);

  const selection = useMemo(() => menuSelection(name), [name]);
  const [openKeys, setOpenKeys] = useState<string[]>(selection.openKeys);
  // Opening a page from elsewhere (tab bar, link) opens its group too, keeping the groups the user opened.
  useEffect(() => {
    setOpenKeys((keys) => Array.from(new Set([...keys, ...selection.openKeys])));
  }, [selection.openKeys]);

  return (
    <Menu
      mode={mode}
      collapse={collapse}
      selectedKeys={selection.selectedKeys}
      openKeys={openKeys}
      onClickSubMenu={(_key, keys) => setOpenKeys(keys)}
      onClickMenuItem={(key) => {
        const path = paths.get(key);
        if (path) {
          void navigate(path);
          onNavigate?.();
        }
      }}
      autoScrollIntoView
      levelIndent={34}
      style={{ width: '100%', height: '100%' }}
    >
      {nodes.map((node) =>
        node.children ? (
          <Menu.SubMenu
            key={node.name}
            title={
              <>
                {menuIcon(node.icon)}
                {t(node.locale)}
              </>
            }
          >
            {node.children.map((child) => (
              <Menu.Item key={child.name}>{t(child.locale)}</Menu.Item>
            ))}
          </Menu.SubMenu>
        ) : (
          <Menu.Item key={node.name}>
            {menuIcon(node.icon)}
            {t(node.locale)}
          </Menu.Item>
        ),
      )}
    </Menu>
  );
}
