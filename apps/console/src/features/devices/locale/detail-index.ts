import zhCN from './detail-zh-CN';
import enUS from './detail-en-US';

/** Texts of the device detail page (its own file, so the list and create pages do not download them). */
export default { 'zh-CN': zhCN, 'en-US': enUS };
