/**
 * 全局中文文案中每个页面（登录页也在内）都要用的部分：公开路由的标题、请求层提示和常用词。
 * 登录后外壳的文案（菜单、导航栏、页面配置、多页签）在 zh-CN-shell.ts，随外壳按需加载。
 */
const zhCN: Record<string, string> = {
  // public routes
  'menu.login': '登录',
  'menu.register': '注册',
  'menu.deviceQrcode': '设备',
  'menu.notFound': '页面不存在',
  'menu.redirect': '跳转',

  // request layer (seed section 8)
  'request.loginExpired': '登录已过期，请重新登录',
  'request.notFound': '请求地址不存在',
  'request.error': '请求错误',
  'request.networkError': '网络错误，请刷新后重试',
  'request.unknownError': '错误',

  // common words
  'common.ok': '确定',
  'common.cancel': '取消',
  'common.confirm': '确认',
  'common.save': '保存',
  'common.reset': '重置',
  'common.search': '查询',
  'common.create': '新建',
  'common.edit': '编辑',
  'common.delete': '删除',
  'common.view': '查看',
  'common.detail': '详情',
  'common.back': '返回',
  'common.retry': '重试',
  'common.copy': '复制',
  'common.copied': '已复制',
  'common.copyFailed': '复制失败，请手动选择复制',
  'common.secret.reveal': '显示密钥',
  'common.secret.hide': '隐藏密钥',
  'common.refresh': '刷新',
  'common.submit': '提交',
  'common.close': '关闭',
  'common.more': '更多',
  'common.loading': '加载中...',
  'common.empty': '暂无数据',
  'common.loadFailed': '加载失败',
  'common.operations': '操作',
  'common.status': '状态',
  'common.enabled': '启用',
  'common.disabled': '停用',
  'common.all': '全部',
  'common.yes': '是',
  'common.no': '否',
  'common.addSuccess': '添加成功',
  'common.addFailed': '添加失败',
  'common.editSuccess': '保存成功',
  'common.deleteSuccess': '删除成功',
  'common.deleteConfirm': '确定要删除吗？',
  'common.unbindConfirm': '确定要解绑吗？',
  'common.logoutSuccess': '登出成功',
  'common.home': '首页',
  'footer.text': 'Cellhub',
  'app.loading': 'Cellhub 加载中...',
  'app.loadError': '页面加载失败，请刷新后重试。',
};

export default zhCN;
