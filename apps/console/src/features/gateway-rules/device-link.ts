/** The console page of a device. */
export const deviceLink = (productKey: string, sn: string): string =>
  `/device/detail/${encodeURIComponent(productKey)}/${encodeURIComponent(sn)}`;

export const GATEWAY_RULES_BASE = '/rule-setting/gate-way';
