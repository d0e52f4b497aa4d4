/**
 * The create form's own check of its SN lines; the wording of refused lines is shared with the device admin pages
 * (components/device-lines), under this feature's `device.` keys here.
 */
import { SN_RULE } from '@cellhub/contract/protocol';
import type { Locale, Translate } from '../../lib/i18n';
import { lineReasonText as wordLine, type LineReason } from '../../components/device-lines/line-reason';

export type { LineReason };

export const lineReasonText = (line: LineReason, t: Translate, locale: Locale): string =>
  wordLine(line, t, locale, 'device');

/** The SN lines of the create form that the server would refuse, with their 1-based line numbers. */
export function badSnLines(text: string | undefined): { row: number; sn: string }[] {
  const out: { row: number; sn: string }[] = [];
  (text ?? '').split(/\r?\n/).forEach((raw, i) => {
    const sn = raw.trim();
    if (sn && !SN_RULE.test(sn)) out.push({ row: i + 1, sn });
  });
  return out;
}
