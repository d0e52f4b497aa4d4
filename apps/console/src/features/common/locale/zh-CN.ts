const zhCN = {
  'unavailable.title': '当前版本尚未提供此功能',
  'unavailable.back': '返回工作台',
  'unavailable.area.product':
    '产品管理：定义产品型号、物模型属性、接入平台、生产任务与指令组，设备按产品接入。',
  'unavailable.area.device':
    '设备管理：查看设备在线状态与信号，远程配置、下发指令，批量配置模板与自定义指令。',
  'unavailable.area.deviceAdmin': '设备库存：设备入库、创建与快速出库，管理出厂设备的归属。',
  'unavailable.area.firmware': '固件管理：上传固件版本、校验值与发布范围，为 OTA 升级提供固件。',
  'unavailable.area.ota':
    'OTA 升级：按产品与固件版本创建升级任务，启动、暂停、取消并跟踪每台设备的升级结果。',
  'unavailable.area.card': '物联网卡：查看卡状态、剩余流量、本月用量与到期时间，订购和续费流量套餐。',
  'unavailable.area.share': '设备分享：通过分享链接查看或控制他人分享的设备。',
  'unavailable.area.scene': '场景：把设备、数据模板和数据源组合成组态场景。',
  'unavailable.area.application': '应用管理：发布应用并管理应用版本。',
  'unavailable.area.ruleSetting': '规则设置：网关规则与设备主机，配置边缘网关的数据采集与转发。',
  'unavailable.area.accesskey': '访问密钥：创建和管理用于开放接口调用的 AccessKey。',
  'unavailable.area.alert': '告警：设备触发条件、告警配置与联系人，通过短信、微信或邮件推送。',
  'unavailable.area.dataTransmit': '数据转发：把设备数据按规则转发到管理设备与边缘设备。',
  'unavailable.area.myshare': '我的分享：管理你分享给他人的设备及其查看、控制权限。',
  'unavailable.area.script': '脚本：编写和管理设备数据解析脚本。',
  'unavailable.area.cardAdmin': '物联网卡管理：卡供应商、卡入库与批量导入、入库日志和流量套餐。',
  'unavailable.area.platform': '接入平台：配置阿里云、腾讯云、Azure 与标准 MQTT 等云平台的接入参数。',
  'unavailable.area.productive': '生产管理：生产信息与生产分组，记录出厂设备的生产数据。',
  'unavailable.area.hw': '硬件信息：查看设备硬件信息、取值与分组。',
  'unavailable.area.system': '系统设置：短信、邮件和微信等通知通道的配置。',
  'unavailable.area.default': '该区域会在后续版本中提供。',
};
export default zhCN;
