/**
 * The console's route table (seed section 2). One table drives the menu, breadcrumb, lazy loading, the guard
 * and the server menu (`POST /api/user/menu` answers with the names of the routes a role may open).
 * Names are unique and stable: the console maps each leaf name to a lazily loaded page.
 */

export const ROLES = ['admin', 'user'] as const;
export type Role = (typeof ROLES)[number];
/** `'*'` means any signed-in role. */
export type RouteRole = Role | '*';

export interface RouteMeta {
  requiresAuth: boolean;
  roles?: RouteRole[];
  order?: number;
  hideInMenu?: boolean;
  /** For hidden detail pages: the menu item to highlight. */
  activeMenu?: string;
  /** Arco icon name for first-level items. */
  icon?: string;
  /** i18n key of the title, e.g. `menu.device.list`. */
  locale: string;
}

export interface RouteDef {
  /** Absolute path. */
  path: string;
  name: string;
  meta: RouteMeta;
  redirect?: string;
  children?: RouteDef[];
}

const ANY: RouteRole[] = ['*'];
const ADMIN: RouteRole[] = ['admin'];

type LeafSpec = [segment: string, name: string, locale: string, extra?: Partial<RouteMeta>];

function group(
  base: string,
  name: string,
  meta: Omit<RouteMeta, 'requiresAuth'> & { requiresAuth?: boolean },
  leaves: LeafSpec[],
  redirect?: string,
): RouteDef {
  const roles = meta.roles ?? ANY;
  return {
    path: base,
    name,
    redirect: redirect ?? (leaves[0] ? `${base}/${leaves[0][0]}` : undefined),
    meta: { requiresAuth: true, ...meta, roles },
    children: leaves.map(([segment, leafName, locale, extra]) => ({
      path: `${base}/${segment}`,
      name: leafName,
      meta: { requiresAuth: true, roles, locale, ...extra },
    })),
  };
}

const hidden = (activeMenu: string, extra: Partial<RouteMeta> = {}): Partial<RouteMeta> => ({
  hideInMenu: true,
  activeMenu,
  ...extra,
});

export const APP_ROUTES: RouteDef[] = [
  group('/dashboard', 'dashboard', { locale: 'menu.dashboard', order: 0, icon: 'IconDashboard' }, [
    ['workplace', 'Workplace', 'menu.dashboard.workplace'],
    ['monitor', 'Monitor', 'menu.dashboard.monitor', { roles: ADMIN, hideInMenu: true }],
  ]),
  group(
    '/visualization',
    'visualization',
    { locale: 'menu.visualization', order: 1, icon: 'IconApps', roles: ADMIN, hideInMenu: true },
    [
      ['data-analysis', 'DataAnalysis', 'menu.visualization.dataAnalysis'],
      ['multi-dimension-data-analysis', 'MultiDAnalysis', 'menu.visualization.multiDimensionDataAnalysis'],
    ],
  ),
  group('/list', 'list', { locale: 'menu.list', order: 2, icon: 'IconList', hideInMenu: true }, [
    ['search-table', 'SearchTable', 'menu.list.searchTable'],
    ['card', 'Card', 'menu.list.cardList'],
  ]),
  group(
    '/form',
    'form',
    { locale: 'menu.form', order: 3, icon: 'IconSettings', roles: ADMIN, hideInMenu: true },
    [
      ['step', 'Step', 'menu.form.step'],
      ['group', 'Group', 'menu.form.group'],
    ],
  ),
  group('/profile', 'profile', { locale: 'menu.profile', order: 4, icon: 'IconFile', roles: ADMIN }, [
    ['basic', 'Basic', 'menu.profile.basic'],
  ]),
  group('/result', 'result', { locale: 'menu.result', order: 5, icon: 'IconCheckCircle', roles: ADMIN }, [
    ['success', 'Success', 'menu.result.success'],
    ['error', 'Error', 'menu.result.error'],
  ]),
  group('/exception', 'exception', { locale: 'menu.exception', order: 6, icon: 'IconExclamationCircle' }, [
    ['403', '403', 'menu.exception.403', { roles: ADMIN }],
    ['404', '404', 'menu.exception.404'],
    ['500', '500', 'menu.exception.500'],
  ]),
  group('/user', 'user', { locale: 'menu.user', order: 7, icon: 'IconUser', hideInMenu: true }, [
    ['setting', 'Setting', 'menu.user.setting', { hideInMenu: true }],
  ]),
  {
    ...group('/product', 'product', { locale: 'menu.product', order: 12, icon: 'IconCommon' }, [
      ['list', 'ProductList', 'menu.product.list'],
      ['create', 'ProductCreate', 'menu.product.create'],
      ['edit/:productKey', 'ProductEdit', 'menu.product.edit', hidden('ProductList')],
      ['detail/:productKey', 'ProductDetail', 'menu.product.detail', hidden('ProductList')],
      ['property/add/:productKey', 'ProductPropertyAdd', 'menu.product.propertyAdd', hidden('ProductList')],
      ['productive/task', 'ProductiveTask', 'menu.product.productiveTask', { roles: ADMIN }],
      [
        'productive/task/:id',
        'ProductiveTaskDetail',
        'menu.product.productiveTaskDetail',
        hidden('ProductiveTask', { roles: ADMIN }),
      ],
      ['model', 'ProductModel', 'menu.product.model', { roles: ADMIN }],
      ['feature', 'ProductFeature', 'menu.product.feature', { roles: ADMIN }],
      [
        'feature/create',
        'ProductFeatureCreate',
        'menu.product.featureCreate',
        hidden('ProductFeature', { roles: ADMIN }),
      ],
      [
        'feature/edit/:id',
        'ProductFeatureEdit',
        'menu.product.featureEdit',
        hidden('ProductFeature', { roles: ADMIN }),
      ],
      [
        'feature/detail/:id',
        'ProductFeatureDetail',
        'menu.product.featureDetail',
        hidden('ProductFeature', { roles: ADMIN }),
      ],
      ['command_group', 'CommandGroup', 'menu.product.commandGroup', { roles: ADMIN }],
      [
        'command_group/create',
        'CommandGroupCreate',
        'menu.product.commandGroupCreate',
        hidden('CommandGroup', { roles: ADMIN }),
      ],
      [
        'command_group/edit/:id',
        'CommandGroupEdit',
        'menu.product.commandGroupEdit',
        hidden('CommandGroup', { roles: ADMIN }),
      ],
      [
        'command_group/detail/:id',
        'CommandGroupDetail',
        'menu.product.commandGroupDetail',
        hidden('CommandGroup', { roles: ADMIN }),
      ],
      [
        'command_group/detail/:id/command/create',
        'CommandCreate',
        'menu.product.commandCreate',
        hidden('CommandGroup', { roles: ADMIN }),
      ],
      [
        'command_group/detail/:id/command/edit/:cmdId',
        'CommandEdit',
        'menu.product.commandEdit',
        hidden('CommandGroup', { roles: ADMIN }),
      ],
    ]),
  },
  group('/device', 'device', { locale: 'menu.device', order: 13, icon: 'IconMobile' }, [
    ['list', 'DeviceList', 'menu.device.list'],
    ['detail/:productKey/:sn', 'DeviceDetail', 'menu.device.detail', hidden('DeviceList')],
    ['bind', 'DeviceBind', 'menu.device.bind'],
    ['create', 'DeviceCreate', 'menu.device.create'],
    ['config-template', 'ConfigTemplate', 'menu.device.configTemplate'],
    // A route of its own so the breadcrumb of a new template says "create", not "detail".
    [
      'config-template/new',
      'ConfigTemplateCreate',
      'menu.device.configTemplateCreate',
      hidden('ConfigTemplate'),
    ],
    [
      'config-template/:id',
      'ConfigTemplateDetail',
      'menu.device.configTemplateDetail',
      hidden('ConfigTemplate'),
    ],
    ['user-command/list', 'UserCommandList', 'menu.device.userCommand'],
    ['user-command/create', 'UserCommandCreate', 'menu.device.userCommandCreate', hidden('UserCommandList')],
    ['user-command/edit/:id', 'UserCommandEdit', 'menu.device.userCommandEdit', hidden('UserCommandList')],
    [
      'user-command/detail/:id',
      'UserCommandDetail',
      'menu.device.userCommandDetail',
      hidden('UserCommandList'),
    ],
  ]),
  group(
    '/device-admin',
    'deviceAdmin',
    { locale: 'menu.deviceAdmin', order: 90, icon: 'IconStorage', roles: ADMIN },
    [
      ['stock', 'DeviceStock', 'menu.deviceAdmin.stock'],
      ['create', 'DeviceStockCreate', 'menu.deviceAdmin.create'],
      ['fast-out-stock', 'DeviceFastOutStock', 'menu.deviceAdmin.fastOutStock'],
    ],
  ),
  group('/firmware', 'firmware', { locale: 'menu.firmware', order: 14, icon: 'IconCode', roles: ADMIN }, [
    ['list', 'FirmwareList', 'menu.firmware.list'],
    ['create', 'FirmwareCreate', 'menu.firmware.create'],
    ['edit/:id', 'FirmwareEdit', 'menu.firmware.edit', hidden('FirmwareList')],
    ['detail/:id', 'FirmwareDetail', 'menu.firmware.detail', hidden('FirmwareList')],
    [
      'detail/:id/version/create',
      'FirmwareVersionCreate',
      'menu.firmware.versionCreate',
      hidden('FirmwareList'),
    ],
    [
      'detail/:id/version/edit/:versionId',
      'FirmwareVersionEdit',
      'menu.firmware.versionEdit',
      hidden('FirmwareList'),
    ],
  ]),
  group('/ota', 'ota', { locale: 'menu.ota', order: 14, icon: 'IconCloudDownload' }, [
    ['task', 'OtaTask', 'menu.ota.task'],
    ['task/create', 'OtaTaskCreate', 'menu.ota.taskCreate'],
    ['task/:id', 'OtaTaskDetail', 'menu.ota.taskDetail', hidden('OtaTask')],
  ]),
  group('/card', 'card', { locale: 'menu.card', order: 19, icon: 'IconIdcard' }, [
    ['list', 'CardList', 'menu.card.list'],
    ['detail/:iccid', 'CardDetail', 'menu.card.detail', hidden('CardList')],
    ['package', 'CardPackage', 'menu.card.package'],
    ['order', 'CardOrder', 'menu.card.order', { roles: ADMIN }],
  ]),
  {
    path: '/share',
    name: 'Share',
    meta: {
      requiresAuth: true,
      roles: ANY,
      order: 19,
      hideInMenu: true,
      locale: 'menu.share',
      icon: 'IconShareAlt',
    },
  },
  group('/scene', 'scene', { locale: 'menu.scene', order: 20, icon: 'IconBranch' }, [
    ['list', 'SceneList', 'menu.scene.list'],
    ['create', 'SceneCreate', 'menu.scene.create'],
    ['detail/:id', 'SceneDetail', 'menu.scene.detail', hidden('SceneList')],
    ['model/list', 'SceneModelList', 'menu.scene.model'],
    ['model/detail/:id', 'SceneModelDetail', 'menu.scene.modelDetail', hidden('SceneModelList')],
    ['data-template/list', 'DataTemplateList', 'menu.scene.dataTemplate'],
    [
      'data-template/detail/:id',
      'DataTemplateDetail',
      'menu.scene.dataTemplateDetail',
      hidden('DataTemplateList'),
    ],
  ]),
  {
    // The group is admin-only in the menu; its pages open to any role (seed section 2).
    ...group(
      '/application',
      'application',
      { locale: 'menu.application', order: 21, icon: 'IconApps', roles: ADMIN },
      [],
    ),
    redirect: '/application/list',
    children: (
      [
        ['list', 'ApplicationList', 'menu.application.list', {}],
        ['create', 'ApplicationCreate', 'menu.application.create', {}],
        ['version/:id', 'ApplicationVersion', 'menu.application.version', hidden('ApplicationList')],
      ] as LeafSpec[]
    ).map(([segment, name, locale, extra]) => ({
      path: `/application/${segment}`,
      name,
      meta: { requiresAuth: true, roles: ANY, locale, ...extra },
    })),
  },
  group(
    '/rule-setting',
    'ruleSetting',
    { locale: 'menu.ruleSetting', order: 30, icon: 'IconMindMapping', roles: ADMIN },
    [
      ['gate-way/list', 'GatewayRuleList', 'menu.ruleSetting.gateway'],
      ['gate-way/create', 'GatewayRuleCreate', 'menu.ruleSetting.gatewayCreate', hidden('GatewayRuleList')],
      [
        'gate-way/detail/:id',
        'GatewayRuleDetail',
        'menu.ruleSetting.gatewayDetail',
        hidden('GatewayRuleList'),
      ],
      ['device-host/list', 'DeviceHostList', 'menu.ruleSetting.deviceHost'],
      [
        'device-host/detail/:id',
        'DeviceHostDetail',
        'menu.ruleSetting.deviceHostDetail',
        hidden('DeviceHostList'),
      ],
    ],
  ),
  group('/accesskey', 'accesskey', { locale: 'menu.accesskey', order: 31, icon: 'IconLock' }, [
    ['list', 'AccessKeyList', 'menu.accesskey.list'],
    ['create', 'AccessKeyCreate', 'menu.accesskey.create'],
    ['detail/:accesskey', 'AccessKeyDetail', 'menu.accesskey.detail', hidden('AccessKeyList')],
  ]),
  group('/alert', 'alert', { locale: 'menu.alert', order: 31, icon: 'IconNotification' }, [
    ['device-trigger/list', 'DeviceTriggerList', 'menu.alert.deviceTrigger'],
    [
      'device-trigger/create',
      'DeviceTriggerCreate',
      'menu.alert.deviceTriggerCreate',
      hidden('DeviceTriggerList'),
    ],
    [
      'device-trigger/edit/:id',
      'DeviceTriggerEdit',
      'menu.alert.deviceTriggerEdit',
      hidden('DeviceTriggerList'),
    ],
    ['config/list', 'AlertConfigList', 'menu.alert.config'],
    ['config/create', 'AlertConfigCreate', 'menu.alert.configCreate', hidden('AlertConfigList')],
    ['config/edit/:id', 'AlertConfigEdit', 'menu.alert.configEdit', hidden('AlertConfigList')],
    ['contact/list', 'AlertContactList', 'menu.alert.contact'],
    ['contact/create', 'AlertContactCreate', 'menu.alert.contactCreate', hidden('AlertContactList')],
    ['contact/edit/:id', 'AlertContactEdit', 'menu.alert.contactEdit', hidden('AlertContactList')],
  ]),
  group('/data-transmit', 'dataTransmit', { locale: 'menu.dataTransmit', order: 31, icon: 'IconSwap' }, [
    ['list', 'DataTransmitList', 'menu.dataTransmit.list'],
    ['create', 'DataTransmitCreate', 'menu.dataTransmit.create'],
    ['edit/:id', 'DataTransmitEdit', 'menu.dataTransmit.edit', hidden('DataTransmitList')],
    ['detail/:id', 'DataTransmitDetail', 'menu.dataTransmit.detail', hidden('DataTransmitList')],
    // Not in the seed: forwarding to the user's own systems (docs/forwarding.md). Leaves of this group because the
    // seed's group list is fixed (routes.test.ts); same roles (any).
    ['forward/list', 'ForwardList', 'menu.dataTransmit.forward'],
    ['forward/create', 'ForwardCreate', 'menu.dataTransmit.forwardCreate', hidden('ForwardList')],
    ['forward/edit/:id', 'ForwardEdit', 'menu.dataTransmit.forwardEdit', hidden('ForwardList')],
    ['forward/detail/:id', 'ForwardDetail', 'menu.dataTransmit.forwardDetail', hidden('ForwardList')],
  ]),
  group('/myshare', 'myshare', { locale: 'menu.myshare', order: 31, icon: 'IconShareInternal' }, [
    ['list', 'MyShareList', 'menu.myshare.list'],
  ]),
  {
    // Admin in the menu; the child pages open to any role (seed section 2).
    ...group(
      '/script',
      'script',
      { locale: 'menu.script', order: 31, icon: 'IconCodeSquare', roles: ADMIN },
      [],
    ),
    redirect: '/script/list',
    children: (
      [
        ['list', 'ScriptList', 'menu.script.list', {}],
        ['create', 'ScriptCreate', 'menu.script.create', {}],
        ['edit/:id', 'ScriptEdit', 'menu.script.edit', hidden('ScriptList')],
        ['detail/:id', 'ScriptDetail', 'menu.script.detail', hidden('ScriptList')],
      ] as LeafSpec[]
    ).map(([segment, name, locale, extra]) => ({
      path: `/script/${segment}`,
      name,
      meta: { requiresAuth: true, roles: ANY, locale, ...extra },
    })),
  },
  group('/card-admin', 'cardAdmin', { locale: 'menu.cardAdmin', order: 90, icon: 'IconSafe', roles: ADMIN }, [
    ['provider', 'CardProvider', 'menu.cardAdmin.provider'],
    ['provider/create', 'CardProviderCreate', 'menu.cardAdmin.providerCreate', hidden('CardProvider')],
    ['provider/edit/:id', 'CardProviderEdit', 'menu.cardAdmin.providerEdit', hidden('CardProvider')],
    ['card', 'CardAdminCard', 'menu.cardAdmin.card'],
    ['card/create', 'CardAdminCardCreate', 'menu.cardAdmin.cardCreate', hidden('CardAdminCard')],
    ['card/batch', 'CardAdminCardBatch', 'menu.cardAdmin.cardBatch', hidden('CardAdminCard')],
    ['card/log', 'CardAdminCardLog', 'menu.cardAdmin.cardLog'],
    ['package', 'CardAdminPackage', 'menu.cardAdmin.package', { roles: ANY }],
    ['package/create', 'CardAdminPackageCreate', 'menu.cardAdmin.packageCreate', hidden('CardAdminPackage')],
    ['package/edit/:id', 'CardAdminPackageEdit', 'menu.cardAdmin.packageEdit', hidden('CardAdminPackage')],
  ]),
  group('/platform', 'platform', { locale: 'menu.platform', order: 90, icon: 'IconCloud', roles: ADMIN }, [
    ['list', 'PlatformList', 'menu.platform.list'],
    ['create', 'PlatformCreate', 'menu.platform.create'],
  ]),
  group(
    '/productive',
    'productive',
    { locale: 'menu.productive', order: 90, icon: 'IconTool', roles: ADMIN },
    [
      ['info', 'ProductiveInfo', 'menu.productive.info'],
      ['group', 'ProductiveGroup', 'menu.productive.group'],
      ['group/:id', 'ProductiveGroupDetail', 'menu.productive.groupDetail', hidden('ProductiveGroup')],
    ],
  ),
  group('/hw', 'hw', { locale: 'menu.hw', order: 99, icon: 'IconDesktop' }, [
    ['info', 'HwInfo', 'menu.hw.info'],
    ['value', 'HwValue', 'menu.hw.value', { roles: ADMIN }],
    ['group', 'HwGroup', 'menu.hw.group', { roles: ADMIN }],
    ['group/:id', 'HwGroupDetail', 'menu.hw.groupDetail', hidden('HwGroup', { roles: ADMIN })],
  ]),
  group('/system', 'system', { locale: 'menu.system', order: 99, icon: 'IconSettings', roles: ADMIN }, [
    ['setting', 'SystemSetting', 'menu.system.setting'],
    // Not in the seed: admins manage accounts here (disable, enable, reset password).
    ['users', 'SystemUsers', 'menu.system.users'],
  ]),
];

/**
 * Paths that are not pages but sub-groups of a group: each redirects to its list (seed section 2, "/alert: ...
 * each group redirects to its list"). They are neither menu entries nor route names.
 */
export const SUBGROUP_REDIRECTS: { path: string; to: string; group: string }[] = [
  { path: '/alert/device-trigger', to: '/alert/device-trigger/list', group: 'alert' },
  { path: '/alert/config', to: '/alert/config/list', group: 'alert' },
  { path: '/alert/contact', to: '/alert/contact/list', group: 'alert' },
];

/** Routes outside the layout and menu. */
export const PUBLIC_ROUTES: RouteDef[] = [
  { path: '/login', name: 'login', meta: { requiresAuth: false, locale: 'menu.login' } },
  { path: '/register', name: 'register', meta: { requiresAuth: false, locale: 'menu.register' } },
  { path: '/qrcode/d/:sn', name: 'DeviceQrcode', meta: { requiresAuth: false, locale: 'menu.deviceQrcode' } },
];

export const REDIRECT_ROUTE_NAME = 'Redirect';
export const NOT_FOUND_ROUTE_NAME = 'notFound';
export const DEFAULT_ROUTE_NAME = 'Workplace';
export const DEFAULT_ROUTE_PATH = '/dashboard/workplace';
/** Reachable whatever the role or server menu says (seed section 6). */
export const WHITE_LIST = ['login', 'register', NOT_FOUND_ROUTE_NAME, 'DeviceQrcode'];

/** Seed section 6: accessible if no sign-in is needed, no roles, `'*'`, or the role is listed. */
export function routeAllows(
  meta: Pick<RouteMeta, 'requiresAuth' | 'roles'>,
  role: Role | undefined,
): boolean {
  if (!meta.requiresAuth) return true;
  if (!meta.roles || meta.roles.length === 0) return true;
  if (meta.roles.includes('*')) return true;
  return role !== undefined && meta.roles.includes(role);
}

/** Depth-first walk of the table. */
export function* walkRoutes(routes: RouteDef[] = APP_ROUTES): Generator<RouteDef> {
  for (const r of routes) {
    yield r;
    if (r.children) yield* walkRoutes(r.children);
  }
}

/**
 * The names of every route a role may open, groups and leaves, in menu order.
 * The server answers `POST /api/user/menu` with this list.
 *
 * A group the role may not open (seed: "/application: group is admin; children ... allow any role") is not named,
 * so the menu keeps it hidden from that role, but its pages the role may open are: with the server menu on, the
 * guard opens only what the list names (seed section 6), and those pages must still open.
 */
export function menuNamesForRole(role: Role): string[] {
  const sorted = [...APP_ROUTES].sort((a, b) => (a.meta.order ?? 0) - (b.meta.order ?? 0));
  const out: string[] = [];
  for (const g of sorted) {
    if (routeAllows(g.meta, role)) out.push(g.name);
    for (const c of g.children ?? []) if (routeAllows(c.meta, role)) out.push(c.name);
  }
  return out;
}
