/**
 * What the product says about its properties (name in zh-CN, name_us in en-US, unit), for the device list's
 * "latest data" cell and its export. The list answer carries them (`property_defs`), so the page shows them with
 * the rows. A device may send keys its product does not define: they keep their key.
 */
import type { PropertyLabel } from '@cellhub/contract/devices';
import type { PropertyValue } from '@cellhub/contract/protocol';
import type { Locale } from '../../lib/i18n';

export type PropertyDef = PropertyLabel;
/** Product key -> its properties in the product's order. */
export type PropertyDefs = ReadonlyMap<string, readonly PropertyDef[]>;

/** The name the user reads: name_us in en-US when the product gives one, else name, else the key. */
export const propertyName = (def: PropertyDef | undefined, key: string, lang: Locale): string =>
  (def && ((lang === 'en-US' && def.name_us) || def.name)) || key;

const formatValue = (v: PropertyValue, unit: string) =>
  typeof v === 'number' && unit ? `${v} ${unit}` : String(v);

/** The product's properties first, in its order, then keys it does not define, sorted. */
export function orderedKeys(keys: Iterable<string>, defs: readonly PropertyDef[] = []): string[] {
  const present = new Set(keys);
  const known = defs.map((d) => d.key).filter((k) => present.has(k));
  const knownSet = new Set(known);
  return [...known, ...[...present].filter((k) => !knownSet.has(k)).sort()];
}

/** `湿度 45 %, 温度 30.5 °C` in the product's words; '' when the device sent nothing yet. */
export function formatValues(
  values: Record<string, PropertyValue>,
  defs: readonly PropertyDef[] | undefined,
  lang: Locale,
): string {
  const byKey = new Map((defs ?? []).map((d) => [d.key, d]));
  return orderedKeys(Object.keys(values), defs)
    .map((k) => {
      const def = byKey.get(k);
      return `${propertyName(def, k, lang)} ${formatValue(values[k]!, def?.unit ?? '')}`;
    })
    .join(', ');
}

/** The device list's `property_defs` as a map (a product the answer leaves out gives no definitions). */
export const defsOf = (wire: Record<string, readonly PropertyDef[]> | undefined): PropertyDefs =>
  new Map(Object.entries(wire ?? {}));
