const zhCN = {
  'qrcode.title': '设备信息',
  'qrcode.sn': '序列号',
  'qrcode.name': '设备名称',
  'qrcode.product': '产品',
  'qrcode.status': '状态',
  'qrcode.lastSeen': '最后通信',
  'qrcode.online': '在线',
  'qrcode.offline': '离线',
  'qrcode.never': '从未通信',
  'qrcode.unnamed': '未命名设备',
  'qrcode.notFound': '设备不存在',
  'qrcode.notFound.hint': '请检查二维码或序列号是否正确。',
  'qrcode.error': '暂时无法获取设备信息，请稍后再试。',
  'qrcode.manage': '登录后管理设备',
};
export default zhCN;
