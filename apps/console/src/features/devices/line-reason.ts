/**
 * Why a line of a create or an import failed, in the user's language: the server's field and rule keys
 * (contract `DEVICE_LINE_RULES`) worded by the locale, the code table's text when there is no rule, and the
 * server's English words only for a rule this console does not know yet.
 */
import type { DeviceImportLine } from '@cellhub/contract/devices';
import { errorText } from '@cellhub/contract/errors';
import { SN_RULE } from '@cellhub/contract/protocol';
import type { Locale, Translate } from '../../lib/i18n';
import { DEVICE_COLUMNS } from './device-columns';

export type LineReason = Pick<DeviceImportLine, 'code' | 'field' | 'rule' | 'params' | 'message'> & {
  row?: number;
};

const fieldLabel = (t: Translate, field: string | undefined) =>
  field && (DEVICE_COLUMNS as readonly string[]).includes(field) ? t(`device.col.${field}`) : (field ?? '');

export function lineReasonText(line: LineReason, t: Translate, locale: Locale): string {
  if (line.code === 0) return '';
  let reason: string;
  if (line.rule) {
    const key = `device.rule.${line.rule}`;
    const worded = t(key, { field: fieldLabel(t, line.field), ...line.params });
    reason = worded === key ? (line.message ?? errorText(line.code, locale) ?? '') : worded;
  } else {
    reason = errorText(line.code, locale) ?? line.message ?? String(line.code);
  }
  return line.row === undefined ? reason : t('device.result.line', { row: line.row, reason });
}

/** The SN lines of the create form that the server would refuse, with their 1-based line numbers. */
export function badSnLines(text: string | undefined): { row: number; sn: string }[] {
  const out: { row: number; sn: string }[] = [];
  (text ?? '').split(/\r?\n/).forEach((raw, i) => {
    const sn = raw.trim();
    if (sn && !SN_RULE.test(sn)) out.push({ row: i + 1, sn });
  });
  return out;
}
