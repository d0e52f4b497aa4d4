import enUS from './en-US';
import zhCN from './zh-CN';

export default { 'zh-CN': zhCN, 'en-US': enUS };
