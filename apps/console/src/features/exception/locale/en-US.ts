import type zhCN from './zh-CN';

const enUS: Record<keyof typeof zhCN, string> = {
  'exception.403.message': 'Access to this resource on the server is denied.',
  'exception.404.message': 'Whoops, this page is gone.',
  'exception.500.message': 'Sorry, something went wrong on the server. Please try again later.',
  'exception.back': 'Back',
  'exception.retry': 'Retry',
};
export default enUS;
