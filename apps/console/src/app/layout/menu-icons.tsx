/**
 * First-level menu icons by the names the route table uses. Listed one by one so only these icons are bundled.
 */
import type { ReactNode } from 'react';
import {
  IconApps,
  IconBranch,
  IconCheckCircle,
  IconCloud,
  IconCloudDownload,
  IconCode,
  IconCodeSquare,
  IconCommon,
  IconDashboard,
  IconDesktop,
  IconExclamationCircle,
  IconFile,
  IconIdcard,
  IconList,
  IconLock,
  IconMindMapping,
  IconMobile,
  IconNotification,
  IconSafe,
  IconSettings,
  IconShareAlt,
  IconShareInternal,
  IconStorage,
  IconSwap,
  IconTool,
  IconUser,
} from '@arco-design/web-react/icon';

const ICONS: Record<string, ReactNode> = {
  IconApps: <IconApps />,
  IconBranch: <IconBranch />,
  IconCheckCircle: <IconCheckCircle />,
  IconCloud: <IconCloud />,
  IconCloudDownload: <IconCloudDownload />,
  IconCode: <IconCode />,
  IconCodeSquare: <IconCodeSquare />,
  IconCommon: <IconCommon />,
  IconDashboard: <IconDashboard />,
  IconDesktop: <IconDesktop />,
  IconExclamationCircle: <IconExclamationCircle />,
  IconFile: <IconFile />,
  IconIdcard: <IconIdcard />,
  IconList: <IconList />,
  IconLock: <IconLock />,
  IconMindMapping: <IconMindMapping />,
  IconMobile: <IconMobile />,
  IconNotification: <IconNotification />,
  IconSafe: <IconSafe />,
  IconSettings: <IconSettings />,
  IconShareAlt: <IconShareAlt />,
  IconShareInternal: <IconShareInternal />,
  IconStorage: <IconStorage />,
  IconSwap: <IconSwap />,
  IconTool: <IconTool />,
  IconUser: <IconUser />,
};

export function menuIcon(name: string | undefined): ReactNode {
  return (name && ICONS[name]) ?? <IconApps />;
}

/** True when the name has its own icon rather than the fallback. */
export function hasMenuIcon(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(ICONS, name);
}
