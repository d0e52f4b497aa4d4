/** Texts of the thing-model pieces of the properties tab (own file, loaded with the tab, not with the page). */
const zhCN = {
  'me.title': '物模型事件',
  'me.event': '事件',
  'me.level': '级别',
  'me.level.info': '信息',
  'me.level.warn': '告警',
  'me.level.error': '故障',
  'me.params': '参数',
  'me.time': '时间',
  'me.total': '共 {n} 次',
  'me.none': '物模型未定义事件',
  'me.empty': '设备尚未上报事件',
  'me.marks': '事件',
  'me.bool.on': '是',
  'me.bool.off': '否',
};
const enUS: typeof zhCN = {
  'me.title': 'Thing model events',
  'me.event': 'Event',
  'me.level': 'Level',
  'me.level.info': 'Info',
  'me.level.warn': 'Warning',
  'me.level.error': 'Error',
  'me.params': 'Parameters',
  'me.time': 'Time',
  'me.total': '{n} in total',
  'me.none': 'The thing model defines no events',
  'me.empty': 'The device has reported no events yet',
  'me.marks': 'Events',
  'me.bool.on': 'Yes',
  'me.bool.off': 'No',
};
export default { 'zh-CN': zhCN, 'en-US': enUS };
