const zhCN = {
  'exception.403.message': '抱歉，你没有权限访问该页面。',
  'exception.404.message': '抱歉，页面不见了～',
  'exception.500.message': '抱歉，服务器出了点问题，请稍后再试。',
  'exception.back': '返回',
  'exception.retry': '重试',
};
export default zhCN;
