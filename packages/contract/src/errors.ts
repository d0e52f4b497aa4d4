/**
 * The error code table: the seed's section 8 codes plus the few the contract adds (marked `contract`).
 * The server answers failures as `{ code, message, details? }` with the English text; the console shows the
 * text of the active locale. Keep the numbering style of the seed when adding codes.
 */

export interface ErrorCodeEntry {
  /** English text, sent by the server as `message`. */
  en: string;
  /** Chinese text, shown by the console in zh-CN. */
  zh: string;
  /** HTTP status the server answers with for this code. */
  http: number;
}

const entry = (en: string, zh: string, http = 400): ErrorCodeEntry => ({ en, zh, http });

export const ERROR_CODES = {
  100: entry('Error', '错误'),
  10101: entry('Server error', '服务器错误', 500),
  // contract: sign-in state, rate limits, dependencies
  10102: entry('Login expired, please sign in again', '登录已过期，请重新登录', 403),
  10103: entry('This account has been disabled', '该账号已被停用'),
  10104: entry('Too many requests, please try again later', '请求过于频繁，请稍后再试', 429),
  10105: entry('Service temporarily unavailable', '服务暂时不可用', 503),
  10106: entry('Request address does not exist', '请求地址不存在', 404),
  10107: entry('Resource does not exist', '资源不存在'),
  10108: entry('No permission for this operation', '没有权限执行该操作'),
  10109: entry('Create error', '创建失败'),
  10110: entry('Update error', '更新失败'),
  10111: entry('Get error', '获取失败'),
  10112: entry('Delete error', '删除失败'),
  10113: entry('Form error', '表单错误'),
  10114: entry('Data transform error', '数据转换错误'),
  10115: entry('Get list error', '获取列表失败'),
  10116: entry('No permission to get device info', '没有权限获取设备信息'),
  10117: entry('Device does not exist', '设备不存在'),
  10118: entry('Unbind failed', '解绑失败'),
  10119: entry('Get location failed', '获取位置失败'),
  10120: entry('Get weather failed', '获取天气失败'),
  10210: entry('Share failed', '分享失败'),
  10211: entry('Share link does not exist', '分享链接不存在'),
  10212: entry('Cannot share with yourself', '不能分享给自己'),
  // contract: signed open API requests with an access key (docs/open-api.md)
  10220: entry('Unknown access key or incomplete signature headers', '访问密钥不存在或签名请求头不完整', 403),
  10221: entry('Signature does not match', '签名不匹配', 403),
  10222: entry('Request timestamp is more than 5 minutes off', '请求时间戳偏差超过 5 分钟', 403),
  10223: entry('Nonce already used', '随机数已被使用', 403),
  10224: entry('Access key is disabled', '访问密钥已停用', 403),
  10225: entry('Access key has expired', '访问密钥已过期', 403),
  10226: entry('Access key is not verified', '访问密钥未验证', 403),
  10227: entry('Access key lacks the scope for this request', '访问密钥没有此操作的权限范围'),
  10228: entry('Request address is not in the access key allow-list', '请求地址不在访问密钥的白名单内', 403),
  11000: entry('Alert trigger scene is empty', '告警触发器场景为空'),
  11001: entry('Alert trigger device is empty', '告警触发器设备为空'),
  11002: entry('Max value is empty', '最大值为空'),
  11003: entry('Min value is empty', '最小值为空'),
  11004: entry('Max and min values are empty', '最大值和最小值为空'),
  11005: entry('Max must exceed min', '最大值必须大于最小值'),
  11006: entry('Max value is empty', '最大值为空'),
  11007: entry('Alert configuration trigger is empty', '告警配置触发器为空'),
  11008: entry('Device is empty', '设备为空'),
  11009: entry('Scene is empty', '场景为空'),
  11010: entry('Interval is empty', '间隔为空'),
  11011: entry('Alert push user is empty', '告警推送用户为空'),
  11012: entry('User code error', '用户编码错误'),
  11013: entry('Password inconsistency', '两次输入的密码不一致'),
  11014: entry('Device already bound', '设备已被绑定'),
  11015: entry('Opening remote link', '正在打开远程链接'),
  11016: entry('Remote link failed', '远程链接失败'),
  20115: entry('SMS code sent', '短信验证码已发送'),
  20116: entry('Email code sent', '邮箱验证码已发送'),
  20117: entry('Email code send failed', '邮箱验证码发送失败'),
  20118: entry('Email code is empty', '邮箱验证码为空'),
  20119: entry('Phone code is empty', '手机验证码为空'),
  20120: entry('Email code error', '邮箱验证码错误'),
  20121: entry('Phone code error', '手机验证码错误'),
  20122: entry('Ticket expired', '二维码已过期'),
  20123: entry('Ticket invalid', '二维码无效'),
  20124: entry('Not scanned', '尚未扫码'),
  20125: entry('Cannot use the same phone number', '不能使用相同的手机号'),
  20126: entry('Getting configuration', '正在获取配置'),
  20127: entry('Configuration failed', '配置失败'),
  20128: entry('QR login code failed', '扫码登录失败'),
  // contract: accounts
  20129: entry('Phone number is already used by another account', '该手机号已被其他账号使用'),
  20130: entry('No account is bound to this phone number', '该手机号未绑定账号'),
  // contract: notification channels (docs/notifications.md)
  20141: entry('This notification channel is not configured', '该通知渠道尚未配置'),
  20401: entry('Device offline', '设备离线'),
  20402: entry('Device serial number exists', '设备序列号已存在'),
  20403: entry('Device is not of this product', '设备不属于该产品'),
  // contract: commands queued for offline devices (docs/api-conventions.md)
  20404: entry('The command is no longer waiting to be sent', '该指令已不在待下发状态'),
  20405: entry('Too many commands are waiting for this device', '该设备待下发的指令过多'),
  30015: entry('Add error', '添加失败'),
  31001: entry('Login error: wrong username or password', '登录失败：用户名或密码错误'),
  31002: entry('Verification code send failed', '验证码发送失败'),
  // contract: accounts
  31003: entry('Username already exists', '用户名已存在'),
  31004: entry('Old password is wrong', '原密码错误'),
  31005: entry(
    'Password must be at least 6 characters, without spaces, with digits, upper and lower case letters',
    '密码至少 6 位，不含空格，需包含数字、大写和小写字母',
  ),
  31006: entry('Please read and agree to the User Agreement first!', '请先阅读并同意用户协议！'),
  // contract: an admin changing roles may not leave the system without an enabled administrator
  31007: entry('At least one enabled administrator must remain', '系统至少需要保留一位启用的管理员'),
  40001: entry('HTTP request creation failed', 'HTTP 请求创建失败', 502),
  40002: entry('HTTP request error', 'HTTP 请求错误', 502),
  40003: entry('Request body read failed', '请求体读取失败'),
  // contract: a URL someone typed points where the server must not connect (docs/outbound.md)
  40004: entry('The target address is not allowed', '目标地址不允许访问'),
  50001: entry('Upload exceeds size limit', '上传文件超过大小限制', 413),
  50002: entry('File type error', '文件类型错误', 415),
  50003: entry('File read error', '文件读取错误'),
  60001: entry('SIM package cannot be changed', '流量套餐不可更改'),
  // contract: SIM cards, packages, orders and balance (docs/sim.md)
  60002: entry('Insufficient balance', '余额不足'),
  60003: entry('SIM card does not exist', '物联卡不存在'),
  60004: entry('The order state does not allow this action', '订单当前状态不允许该操作'),
  60005: entry('The package is not available for this card', '该套餐不适用于此卡'),
  60006: entry('ICCID already exists', 'ICCID 已存在'),
  60007: entry('Package code already exists', '套餐编码已存在'),
  60008: entry('Connection to the SIM provider failed', '连接物联卡平台失败'),
  60009: entry('The SIM provider still has cards', '该物联卡平台下仍有卡'),
  70001: entry('Firmware information not found', '未找到固件信息'),
  70002: entry('A value of the same type exists', '已存在相同类型的值'),
  70003: entry('Field value error', '字段值错误'),
  // contract: OTA tasks (docs/ota.md)
  71001: entry('The task state does not allow this action', '任务当前状态不允许该操作'),
  71002: entry('The task has no target devices', '任务没有目标设备'),
  71003: entry('The firmware version is not for this product', '该固件版本不属于此产品'),
  71004: entry('The download link is invalid or has expired', '下载链接无效或已过期', 403),
  71005: entry('The firmware version is used by an OTA task', '该固件版本正被升级任务使用'),
  71006: entry('The task window has ended', '任务时间窗口已结束'),
  71007: entry('Too many target devices', '目标设备过多'),
  80001: entry('Slave variable is empty', '从机变量为空'),
  80002: entry('Slave is empty', '从机为空'),
  80003: entry('Register range must be 1-65535', '寄存器范围必须为 1-65535'),
  // contract: data templates and Modbus (docs/data-templates.md)
  80004: entry('The formula is invalid', '公式无效'),
  80005: entry('The data format does not fit the register type', '数据格式与寄存器类型不匹配'),
  80006: entry('A variable with this tag exists in the template', '模板中已存在相同标识的变量'),
  80007: entry('The variable is not writable', '该变量不可写'),
  80008: entry('The value is out of range for the variable', '数值超出变量范围'),
  80009: entry('The data template is applied to devices', '该数据模板正被设备使用'),
  // contract: Modbus polling through the DTU (docs/modbus-polling.md)
  81001: entry('The slave did not answer in time', '从机响应超时'),
  81002: entry('The slave answered with an exception', '从机返回异常'),
  81003: entry('The slave answer is invalid', '从机响应无效'),
  81004: entry('The device has no data template', '设备未应用数据模板'),
  // contract: parsing scripts (docs/scripts.md)
  82001: entry('The script failed', '脚本执行失败'),
  82002: entry('The script ran out of time', '脚本执行超时'),
  82003: entry('The script ran out of memory', '脚本内存超限'),
  82004: entry('The script is disabled', '脚本已停用'),
  82005: entry('The script source is invalid', '脚本源码无效'),
  // contract: scenes and scene models (docs/scenes.md)
  83001: entry('The scene file is invalid', '场景文件无效'),
  83002: entry('The scene file version is not supported', '不支持该场景文件版本'),
  83003: entry('The binding does not match the device', '绑定与设备不匹配'),
  83004: entry('The scene model is used by scenes', '该场景模型正被场景使用'),
  83005: entry('The widget is not a control', '该组件不可控制'),
  83006: entry('The scene has too many widgets', '场景组件过多'),
  // contract: device hosts, socket-mode DTUs (docs/device-hosts.md) — 84001-84099
  84001: entry('The port is outside the range for device hosts', '端口不在设备主机可用范围内'),
  84002: entry('The port is already in use', '端口已被占用'),
  84003: entry('The device host does not exist', '设备主机不存在'),
  84004: entry(
    'The device is connected to a device host, which takes only commands and raw data',
    '设备通过设备主机连接，仅支持指令和透传数据',
  ),
  // contract: gateway rules and sub-devices (docs/gateway-rules.md) — 85001-85099
  85001: entry('The gateway rule does not exist', '网关规则不存在'),
  85002: entry('The device is not a gateway', '该设备不是网关设备'),
  85003: entry('The gateway already has a rule', '该网关已有网关规则'),
  85004: entry('The device is not a sub-device', '该设备不是子设备'),
  85005: entry('The sub-device is bound to another gateway', '该子设备已绑定其他网关'),
  85006: entry('The sub-device is not bound to this gateway', '该子设备未绑定此网关'),
  85007: entry('The gateway and the sub-device belong to different owners', '网关与子设备不属于同一用户'),
  85008: entry('The gateway has too many sub-devices', '网关子设备数量已达上限'),
  85009: entry('A sub-device cannot be upgraded through its gateway', '子设备不支持通过网关升级'),
  85010: entry('The sub-device is disabled', '该子设备已停用'),
  // contract: forwarding to other systems (docs/forwarding.md) — 86001-86099
  86001: entry('The forwarding rule does not exist', '转发规则不存在'),
  86002: entry('Too many forwarding rules', '转发规则数量已达上限'),
  86003: entry('The template uses an unknown placeholder', '模板包含未知占位符'),
  // contract: data transmission between devices (docs/data-transmit.md) — 87001-87099
  87001: entry(
    'A device cannot be a management and an edge device of one rule',
    '同一规则中设备不能既是管理设备又是边缘设备',
  ),
  87002: entry('A device is listed twice in the rule', '规则中设备重复'),
  87003: entry(
    'Each edge device needs its own Modbus slave addresses',
    '每个边缘设备需要各自不同的 Modbus 从机地址',
  ),
  87004: entry('The transmission rule does not exist', '透传规则不存在'),
  87005: entry('No edge device has this Modbus slave address', '没有边缘设备使用该 Modbus 从机地址'),
  // contract: remote tunnels (docs/tunnels.md) — 88001-88099
  88001: entry('The tunnel does not exist', '远程链接不存在'),
  88002: entry('Too many open tunnels', '打开的远程链接过多'),
  88003: entry('No tunnel port is free', '没有可用的远程链接端口'),
  88004: entry('The tunnel endpoint cannot listen', '远程链接服务端口无法监听'),
  90000: entry('Please enter the command value', '请输入指令值'),
  90001: entry('Command value is empty', '指令值为空'),
  90002: entry('Push failed', '推送失败'),
} as const satisfies Record<number, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes the console never toasts (seed section 8): QR polling states and "getting configuration". */
export const SILENT_CODES: readonly number[] = [20124, 20123, 20126];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'number' && Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

export function errorText(code: number, locale: 'zh-CN' | 'en-US'): string | undefined {
  if (!isErrorCode(code)) return undefined;
  const e = ERROR_CODES[code];
  return locale === 'zh-CN' ? e.zh : e.en;
}

/** The failure body of CONTRACT.md: no `status` field. */
export interface ErrorBody {
  code: number;
  message: string;
  details?: unknown;
}
