import type zhCN from './zh-CN';

const enUS: Record<keyof typeof zhCN, string> = {
  'qrcode.title': 'Device',
  'qrcode.sn': 'Serial number',
  'qrcode.name': 'Name',
  'qrcode.product': 'Product',
  'qrcode.status': 'Status',
  'qrcode.lastSeen': 'Last seen',
  'qrcode.online': 'Online',
  'qrcode.offline': 'Offline',
  'qrcode.never': 'Never',
  'qrcode.unnamed': 'Unnamed device',
  'qrcode.notFound': 'No such device',
  'qrcode.notFound.hint': 'Check the QR code or the serial number.',
  'qrcode.error': 'The device could not be loaded just now. Please try again later.',
  'qrcode.manage': 'Sign in to manage it',
};
export default enUS;
