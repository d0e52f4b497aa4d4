import type { PageLocale } from '../../lib/messages';

const zhCN = {
  'resultPage.notFound': '记录不存在，或不属于你',
  'resultPage.notFound.hint': '它可能已被删除，或者链接有误。',
  'resultPage.forbidden': '你没有打开此页面的权限',
  'resultPage.forbidden.hint': '需要其他角色或所有者的授权。',
  'resultPage.failed': '加载失败',
  'resultPage.back': '返回列表',
  'resultPage.retry': '重试',
};

const enUS: Record<keyof typeof zhCN, string> = {
  'resultPage.notFound': 'This record does not exist or is not yours',
  'resultPage.notFound.hint': 'It may have been deleted, or the link is wrong.',
  'resultPage.forbidden': 'You do not have permission to open this page',
  'resultPage.forbidden.hint': 'It needs another role or the owner’s permission.',
  'resultPage.failed': 'Could not load it',
  'resultPage.back': 'Back to the list',
  'resultPage.retry': 'Retry',
};

const locale: PageLocale = { 'zh-CN': zhCN, 'en-US': enUS };
export default locale;
