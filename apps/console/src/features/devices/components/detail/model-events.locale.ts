/** Texts of the thing-model pieces of the properties tab (own file, loaded with the tab, not with the page). */
const zhCN = {
  'me.title': '物模型事件',
  'me.event': '事件',
  'me.level': '级别',
  'me.level.info': '信息',
  'me.level.warn': '告警',
  'me.level.error': '故障',
  'me.output': '输出参数',
  'me.none': '物模型未定义事件',
  'me.noData': '设备协议尚无事件上报消息，平台不记录事件的发生，因此这里只列出定义，不显示发生次数或时间。',
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
  'me.output': 'Output parameters',
  'me.none': 'The thing model defines no events',
  'me.noData':
    'The device protocol has no event message yet, so the platform records no occurrences: only the definitions are listed, with no count or time.',
  'me.bool.on': 'Yes',
  'me.bool.off': 'No',
};
export default { 'zh-CN': zhCN, 'en-US': enUS };
