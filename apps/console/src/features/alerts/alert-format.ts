import type { AlertTriggerType } from '@cellhub/contract/alerts';
import type { PropertyValue } from '@cellhub/contract/protocol';
import type { Locale, Translate } from '../../lib/i18n';

export const STATE_COLOR = { normal: 'green', active: 'red' } as const;
export const HISTORY_COLOR = { active: 'red', recovered: 'green' } as const;

/** A number as typed: no trailing zeros, no exponent for ordinary values. */
const num = (n: number | null) => (n === null ? '?' : String(n));

/** The property's name in the user's language: name_us in en-US when the product gives one. */
export const triggerPropertyName = (
  row: { property_name: string; property_name_us: string },
  lang: Locale,
): string => (lang === 'en-US' && row.property_name_us) || row.property_name;

/** The condition in one line: `温度 > 30`, `10 ≤ 温度 ≤ 20`, `设备离线`. */
export function conditionText(
  t: Translate,
  c: { type: AlertTriggerType; a: number | null; b: number | null; property: string },
): string {
  const p = c.property || '?';
  switch (c.type) {
    case 1:
      return t('alert.cond.online');
    case 2:
      return t('alert.cond.offline');
    case 3:
      return `${p} < ${num(c.a)}`;
    case 4:
      return `${p} > ${num(c.b)}`;
    case 5:
      return `${num(c.a)} ≤ ${p} ≤ ${num(c.b)}`;
    case 6:
      return t('alert.cond.outside', { p, a: num(c.a), b: num(c.b) });
    case 7:
      return `${p} = ${num(c.a)}`;
  }
}

/** A stored value as the history shows it; online triggers store 1/0. */
export function valueText(t: Translate, type: AlertTriggerType, v: PropertyValue | null): string {
  if (v === null) return '';
  if (type === 1 || type === 2) return t(v === 1 ? 'alert.value.online' : 'alert.value.offline');
  return String(v);
}

/** Seconds as the lists show them: `90 秒`, `5 分钟`, `2 小时`. */
export function durationText(t: Translate, seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return t('alert.hours', { n: seconds / 3600 });
  if (seconds >= 60 && seconds % 60 === 0) return t('alert.minutes', { n: seconds / 60 });
  return t('alert.seconds', { n: seconds });
}
