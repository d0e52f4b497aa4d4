/**
 * Route name -> lazily loaded page. Each page is its own chunk, so a route downloads only what it shows.
 * Routes whose area arrives with a later issue share the "unavailable" page, which reads the route itself.
 */
import type { ComponentType } from 'react';

export type PageModule = { default: ComponentType };
export type PageLoader = () => Promise<PageModule>;

const unavailable: PageLoader = () => import('../features/common/pages/unavailable-page');
const notFound: PageLoader = () => import('../features/exception/pages/exception-404-page');

export const PAGE_LOADERS: Record<string, PageLoader> = {
  login: () => import('../features/auth/pages/login-page'),
  register: () => import('../features/auth/pages/register-page'),
  Setting: () => import('../features/user/pages/user-setting-page'),
  SystemUsers: () => import('../features/users/pages/user-list-page'),
  SystemSetting: () => import('../features/system-settings/pages/system-setting-page'),
  '403': () => import('../features/exception/pages/exception-403-page'),
  '404': notFound,
  '500': () => import('../features/exception/pages/exception-500-page'),
  notFound,
  Workplace: () => import('../features/dashboard/pages/workplace-page'),
  ProductList: () => import('../features/products/pages/product-list-page'),
  ProductCreate: () => import('../features/products/pages/product-create-page'),
  ProductEdit: () => import('../features/products/pages/product-edit-page'),
  ProductDetail: () => import('../features/products/pages/product-detail-page'),
  ProductPropertyAdd: () => import('../features/products/pages/property-add-page'),
  PlatformList: () => import('../features/platforms/pages/platform-list-page'),
  PlatformCreate: () => import('../features/platforms/pages/platform-create-page'),
  DeviceDetail: () => import('../features/devices/pages/device-detail-page'),
  DeviceList: () => import('../features/devices/pages/device-list-page'),
  DeviceCreate: () => import('../features/devices/pages/device-create-page'),
  DeviceBind: () => import('../features/devices/pages/device-bind-page'),
  DeviceQrcode: () => import('../features/device-qrcode/pages/device-qrcode-page'),
  Monitor: () => import('../features/demo/pages/monitor-page'),
  SearchTable: () => import('../features/demo/pages/search-table-page'),
  Card: () => import('../features/demo/pages/card-list-page'),
  Step: () => import('../features/demo/pages/step-form-page'),
  Group: () => import('../features/demo/pages/group-form-page'),
  Basic: () => import('../features/demo/pages/profile-basic-page'),
  Success: () => import('../features/demo/pages/result-success-page'),
  Error: () => import('../features/demo/pages/result-error-page'),
  DataAnalysis: () => import('../features/demo/pages/data-analysis-page'),
  MultiDAnalysis: () => import('../features/demo/pages/multi-dimension-page'),
  UserCommandList: () => import('../features/user-commands/pages/user-command-list-page'),
  UserCommandCreate: () => import('../features/user-commands/pages/user-command-edit-page'),
  UserCommandEdit: () => import('../features/user-commands/pages/user-command-edit-page'),
  UserCommandDetail: () => import('../features/user-commands/pages/user-command-detail-page'),
  ConfigTemplate: () => import('../features/config-templates/pages/config-template-list-page'),
  ConfigTemplateCreate: () => import('../features/config-templates/pages/config-template-detail-page'),
  ConfigTemplateDetail: () => import('../features/config-templates/pages/config-template-detail-page'),
  FirmwareList: () => import('../features/firmware/pages/firmware-list-page'),
  FirmwareCreate: () => import('../features/firmware/pages/firmware-create-page'),
  FirmwareEdit: () => import('../features/firmware/pages/firmware-edit-page'),
  FirmwareDetail: () => import('../features/firmware/pages/firmware-detail-page'),
  FirmwareVersionCreate: () => import('../features/firmware/pages/version-create-page'),
  FirmwareVersionEdit: () => import('../features/firmware/pages/version-edit-page'),
  OtaTask: () => import('../features/ota/pages/ota-task-list-page'),
  OtaTaskCreate: () => import('../features/ota/pages/ota-task-create-page'),
  OtaTaskDetail: () => import('../features/ota/pages/ota-task-detail-page'),
  DeviceTriggerList: () => import('../features/alerts/pages/trigger-list-page'),
  DeviceTriggerCreate: () => import('../features/alerts/pages/trigger-edit-page'),
  DeviceTriggerEdit: () => import('../features/alerts/pages/trigger-edit-page'),
  AlertConfigList: () => import('../features/alerts/pages/config-list-page'),
  AlertConfigCreate: () => import('../features/alerts/pages/config-edit-page'),
  AlertConfigEdit: () => import('../features/alerts/pages/config-edit-page'),
  AlertContactList: () => import('../features/alerts/pages/contact-list-page'),
  AlertContactCreate: () => import('../features/alerts/pages/contact-edit-page'),
  AlertContactEdit: () => import('../features/alerts/pages/contact-edit-page'),
  CardList: () => import('../features/sim/pages/card-list-page'),
  CardDetail: () => import('../features/sim/pages/card-detail-page'),
  CardPackage: () => import('../features/sim/pages/card-package-page'),
  CardOrder: () => import('../features/sim/pages/order-admin-page'),
  CardProvider: () => import('../features/sim/pages/provider-list-page'),
  CardProviderCreate: () => import('../features/sim/pages/provider-create-page'),
  CardProviderEdit: () => import('../features/sim/pages/provider-edit-page'),
  CardAdminCard: () => import('../features/sim/pages/stock-list-page'),
  CardAdminCardCreate: () => import('../features/sim/pages/stock-create-page'),
  CardAdminCardBatch: () => import('../features/sim/pages/stock-batch-page'),
  CardAdminCardLog: () => import('../features/sim/pages/stock-log-page'),
  CardAdminPackage: () => import('../features/sim/pages/package-list-page'),
  CardAdminPackageCreate: () => import('../features/sim/pages/package-create-page'),
  CardAdminPackageEdit: () => import('../features/sim/pages/package-edit-page'),
  AccessKeyList: () => import('../features/access-keys/pages/access-key-list-page'),
  AccessKeyCreate: () => import('../features/access-keys/pages/access-key-create-page'),
  AccessKeyDetail: () => import('../features/access-keys/pages/access-key-detail-page'),
  Share: () => import('../features/shares/pages/share-page'),
  MyShareList: () => import('../features/shares/pages/my-share-list-page'),
};

export function pageLoader(name: string): PageLoader {
  return PAGE_LOADERS[name] ?? unavailable;
}
