import type { PageLocale } from '../../../lib/messages';
import enUS from './en-US';
import zhCN from './zh-CN';

const locale: PageLocale = { 'zh-CN': zhCN, 'en-US': enUS };
export default locale;
