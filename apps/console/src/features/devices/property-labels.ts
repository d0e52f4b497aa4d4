/**
 * What the product says about its properties (name in zh-CN, name_us in en-US, unit), for the device list's
 * "latest data" cell and its export. A device may send keys its product does not define: they keep their key.
 */
import type { PropertyValue } from '@cellhub/contract/protocol';
import type { ProductDetail, ProductProperty } from '@cellhub/contract/products';
import { useQueries, type QueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import type { Locale } from '../../lib/i18n';
import { http } from '../../lib/request';

export type PropertyDef = Pick<ProductProperty, 'key' | 'name' | 'name_us' | 'unit'>;
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

const defsKey = (productKey: string) => ['product-properties', productKey] as const;

/** A product the caller may not read (or one deleted meanwhile) gives no definitions: its keys are shown. */
const fetchDefs = (productKey: string) => async (): Promise<PropertyDef[]> => {
  try {
    const p = await http.get<ProductDetail>(`/api/products/${encodeURIComponent(productKey)}`, {
      silent: true,
    });
    return p.properties.map(({ key, name, name_us, unit }) => ({ key, name, name_us, unit }));
  } catch {
    return [];
  }
};

const STALE_MS = 60_000;

/** The definitions of the products of a page of devices (a page rarely spans more than a few products). */
export function usePropertyDefs(productKeys: readonly string[]): PropertyDefs {
  const keys = useMemo(() => [...new Set(productKeys)].sort(), [productKeys]);
  const combine = useCallback(
    (results: { data?: PropertyDef[] }[]): PropertyDefs =>
      new Map(keys.map((k, i) => [k, results[i]?.data ?? []])),
    [keys],
  );
  return useQueries({
    queries: keys.map((k) => ({ queryKey: defsKey(k), queryFn: fetchDefs(k), staleTime: STALE_MS })),
    combine,
  });
}

/** The same definitions for an export's rows, through the same cache. */
export async function loadPropertyDefs(
  qc: QueryClient,
  productKeys: Iterable<string>,
): Promise<PropertyDefs> {
  const keys = [...new Set(productKeys)];
  const lists = await Promise.all(
    keys.map((k) => qc.fetchQuery({ queryKey: defsKey(k), queryFn: fetchDefs(k), staleTime: STALE_MS })),
  );
  return new Map(keys.map((k, i) => [k, lists[i]!]));
}
