/**
 * Why a line of a device create, import or range failed, in the user's language: the server's field and rule keys
 * (contract `DEVICE_LINE_RULES`) worded by the locale, the code table's text when there is no rule, and the
 * server's English words only for a rule this console does not know yet. Promoted from the devices feature so the
 * device admin pages word their lines alike.
 */
import { DEVICE_IMPORT_COLUMNS, type DeviceImportLine } from '@cellhub/contract/devices';
import { errorText } from '@cellhub/contract/errors';
import type { Locale, Translate } from '../../lib/i18n';

export type LineReason = Pick<DeviceImportLine, 'code' | 'field' | 'rule' | 'params' | 'message'> & {
  row?: number;
};

/**
 * `t` reads keys under a prefix: `deviceLines` with this folder's locale, `device` with the devices feature's
 * (which words the same keys).
 */
export function lineReasonText(
  line: LineReason,
  t: Translate,
  locale: Locale,
  prefix = 'deviceLines',
): string {
  if (line.code === 0) return '';
  const field =
    line.field && (DEVICE_IMPORT_COLUMNS as readonly string[]).includes(line.field)
      ? t(`${prefix}.col.${line.field}`)
      : (line.field ?? '');
  let reason: string;
  if (line.rule) {
    const key = `${prefix}.rule.${line.rule}`;
    const worded = t(key, { field, ...line.params });
    reason = worded === key ? (line.message ?? errorText(line.code, locale) ?? '') : worded;
  } else {
    reason = errorText(line.code, locale) ?? line.message ?? String(line.code);
  }
  return line.row === undefined ? reason : t(`${prefix}.result.line`, { row: line.row, reason });
}
