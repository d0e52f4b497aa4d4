import {
  ALERT_DEFAULT_PUSH_CONTENT,
  ALERT_DEFAULT_RECOVERY_CONTENT,
  type AlertTriggerType,
} from '@cellhub/contract/alerts';
import type { PropertyValue } from '@cellhub/contract/protocol';

/** The condition part of a trigger, as the evaluator keeps it in memory. */
export interface Condition {
  type: AlertTriggerType;
  a: number | null;
  b: number | null;
}

const DECIMAL = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** The number a property value counts as: booleans 1/0, decimal strings parsed, anything else none. */
export function numericOf(v: PropertyValue): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (!DECIMAL.test(v)) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Whether a property value meets a trigger's condition (types 3-7; contract `ALERT_TRIGGER_TYPES`). A value that is
 * not a number meets none: it neither raises nor recovers (undefined), so a stray string does not end an alert.
 */
export function meetsValue(c: Condition, v: PropertyValue): boolean | undefined {
  const n = numericOf(v);
  if (n === undefined) return undefined;
  switch (c.type) {
    case 3:
      return c.a !== null ? n < c.a : undefined;
    case 4:
      return c.b !== null ? n > c.b : undefined;
    case 5:
      return c.a !== null && c.b !== null ? n >= c.a && n <= c.b : undefined;
    case 6:
      return c.a !== null && c.b !== null ? n < c.a || n > c.b : undefined;
    case 7:
      return c.a !== null ? n === c.a : undefined;
    default:
      return undefined;
  }
}

/** Types 1 (active while online) and 2 (active while offline). */
export function meetsPresence(type: AlertTriggerType, online: 0 | 1): boolean | undefined {
  if (type === 1) return online === 1;
  if (type === 2) return online === 0;
  return undefined;
}

export interface RenderContext {
  device: string;
  property: string;
  value: string;
  time: string;
}

/** Fills {device} {property} {value} {time}; an empty content falls back to the default text. */
export function renderContent(template: string, kind: 'raise' | 'recover', ctx: RenderContext): string {
  const text =
    template.trim() || (kind === 'raise' ? ALERT_DEFAULT_PUSH_CONTENT : ALERT_DEFAULT_RECOVERY_CONTENT);
  return text.replace(/\{(device|property|value|time)\}/g, (_m, k: keyof RenderContext) => ctx[k]);
}

/** `2025-01-02 03:04:05 UTC`: readable in a text message, unambiguous across time zones. */
export const alertTime = (d: Date): string => `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

export const valueText = (v: PropertyValue | null): string => (v === null ? '' : String(v));
