import type zhCN from './zh-CN';

const enUS: Record<keyof typeof zhCN, string> = {
  'unavailable.title': 'This area is not available in this release yet',
  'unavailable.back': 'Back to Workplace',
  'unavailable.area.product':
    'Products: define device models, their properties, the cloud platform they use, production tasks and command groups.',
  'unavailable.area.device':
    'Devices: see online state and signal, configure devices remotely, send commands, manage config templates and custom commands.',
  'unavailable.area.deviceAdmin':
    'Device stock: take devices into stock, create them and ship them out quickly.',
  'unavailable.area.firmware':
    'Firmware: upload firmware versions with checksums and release scope for OTA upgrades.',
  'unavailable.area.ota':
    'OTA upgrades: create upgrade tasks by product and firmware, start, pause or cancel them and follow each device.',
  'unavailable.area.card':
    'SIM cards: status, remaining data, monthly usage and expiry of each card; order and renew data plans.',
  'unavailable.area.share': 'Shared devices: view or control devices others shared with you through a link.',
  'unavailable.area.scene':
    'Scenes: combine devices, data templates and data sources into SCADA-style scenes.',
  'unavailable.area.application': 'Applications: publish applications and manage their versions.',
  'unavailable.area.ruleSetting':
    'Rules: gateway rules and device hosts that configure data collection and forwarding on edge gateways.',
  'unavailable.area.accesskey': 'Access keys: create and manage AccessKeys for the open API.',
  'unavailable.area.alert':
    'Alerts: device triggers, alert configurations and contacts, pushed by SMS, WeChat or email.',
  'unavailable.area.dataTransmit':
    'Data transmission: forward device data by rule to management and edge devices.',
  'unavailable.area.myshare': 'My shares: manage the devices you shared and their view and control rights.',
  'unavailable.area.script': 'Scripts: write and manage scripts that parse device data.',
  'unavailable.area.cardAdmin':
    'SIM administration: providers, card stock and batch import, stock logs and data plans.',
  'unavailable.area.platform':
    'Platforms: connection settings for Aliyun, Tencent Cloud, Azure and standard MQTT platforms.',
  'unavailable.area.productive':
    'Production: manufacturing records and groups for devices leaving the factory.',
  'unavailable.area.hw': 'Hardware info: device hardware details, values and groups.',
  'unavailable.area.system': 'System settings: SMS, email and WeChat notification channels.',
  'unavailable.area.default': 'This area arrives in a later release.',
};
export default enUS;
