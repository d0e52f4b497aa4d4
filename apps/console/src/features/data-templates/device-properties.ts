/**
 * A device's data template variables as properties (key = tag, name, unit), merged after the product's own: what the
 * device detail's property panel and chart, and the alert trigger's property picker, offer for the device.
 */
import type { DeviceTemplateInfo } from '@cellhub/contract/data-templates';
import type { ProductProperty } from '@cellhub/contract/products';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../lib/request';

const enc = encodeURIComponent;

export const fetchDeviceTemplate = (sn: string) =>
  http.get<DeviceTemplateInfo>(`/api/devices/${enc(sn)}/data-template`, { silent: true });

export function useDeviceTemplate(sn: string | undefined) {
  return useQuery({
    queryKey: ['data-templates', 'device', sn],
    queryFn: () => fetchDeviceTemplate(sn!),
    enabled: !!sn,
    retry: false,
    staleTime: 60_000,
  });
}

/** The product's properties, then the template's variables whose tag the product does not define. */
export function withTemplateProperties(
  product: readonly ProductProperty[] | undefined,
  template: DeviceTemplateInfo | undefined,
): ProductProperty[] | undefined {
  if (!template || template.properties.length === 0) return product ? [...product] : product;
  const base = product ?? [];
  const keys = new Set(base.map((p) => p.key));
  return [
    ...base,
    ...template.properties
      .filter((p) => !keys.has(p.key))
      .map((p): ProductProperty => ({
        key: p.key,
        name: p.name,
        name_us: p.name_us,
        unit: p.unit,
        datatype: p.datatype,
        charttype: p.datatype === 'bool' ? 'none' : 'line',
        cycles: 0,
      })),
  ];
}
