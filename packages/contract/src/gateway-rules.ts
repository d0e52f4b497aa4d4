/**
 * Gateway rules (issue 18, docs/gateway-rules.md; seed /rule-setting/gate-way/*): a gateway device and the
 * sub-devices bound to it, shaped as the original product's public SDK shows them: an id, the gateway device, a name,
 * and the sub-devices, each with its address on the gateway's bus and a name. Only a device of a `gateway` product
 * owns a rule (one rule per gateway); only devices of `sub_device` products are bound, each to one gateway at a time.
 * The gateway speaks for its sub-devices on the `sub_*` topics of docs/device-protocol.md.
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { SN_RULE } from './protocol';
import { text } from './text';

/** At most this many sub-devices in one bind or unbind request, and per rule. */
export const GATEWAY_BIND_MAX = 100;
export const GATEWAY_SUB_DEVICES_MAX = 1000;

const sn = text().regex(SN_RULE, 'sn_rule');
const name = text().trim().min(1).max(64);
/** The sub-device's address on the gateway's bus (a Modbus slave id, a LoRa address, a port): free text. */
const address = text().trim().max(64);

export const gatewayRuleIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

export const gatewayRuleListQuery = pageQuery.extend({
  /** In the rule's name or the gateway's sn or name. */
  keyword: text().trim().max(64).optional(),
});
export type GatewayRuleListQuery = z.infer<typeof gatewayRuleListQuery>;

export const gatewayRuleBody = z.object({ name, gateway_sn: sn }).strict();
export type GatewayRuleBody = z.infer<typeof gatewayRuleBody>;
export const gatewayRuleUpdateBody = z.object({ name }).strict();
export type GatewayRuleUpdateBody = z.infer<typeof gatewayRuleUpdateBody>;

export const subDeviceInput = z
  .object({ sn, address: address.default(''), name: text().trim().max(64).default('') })
  .strict();
export type SubDeviceInput = z.input<typeof subDeviceInput>;
export const gatewayBindBody = z
  .object({ sub_devices: z.array(subDeviceInput).min(1).max(GATEWAY_BIND_MAX) })
  .strict();
export type GatewayBindBody = z.input<typeof gatewayBindBody>;
export const gatewayUnbindBody = z.object({ sns: z.array(sn).min(1).max(GATEWAY_BIND_MAX) }).strict();
export type GatewayUnbindBody = z.infer<typeof gatewayUnbindBody>;

/** Devices offered by the console's pickers: gateways without a rule, or sub-devices bound to no gateway. */
export const gatewayCandidateQuery = z.object({
  nodetype: z.enum(['gateway', 'sub_device']),
  keyword: text().trim().max(64).optional(),
});
export type GatewayCandidateQuery = z.infer<typeof gatewayCandidateQuery>;
export const gatewayCandidate = z.object({
  sn: text(),
  name: text(),
  product_key: text(),
  product_name: text(),
  online: z.number().int(),
});
export type GatewayCandidate = z.infer<typeof gatewayCandidate>;

const iso = text();

export const gatewayRuleItem = z.object({
  id: z.number().int(),
  name: text(),
  gateway_sn: text(),
  gateway_name: text(),
  product_key: text(),
  product_name: text(),
  /** The gateway's online flag (1/0). */
  online: z.number().int(),
  sub_device_count: z.number().int(),
  createdat: iso,
  updatedat: iso,
});
export type GatewayRuleItem = z.infer<typeof gatewayRuleItem>;

export const subDeviceItem = z.object({
  sn: text(),
  /** The name given in the rule ('' when none: the console shows the device's own name). */
  name: text(),
  address: text(),
  device_name: text(),
  product_key: text(),
  product_name: text(),
  online: z.number().int(),
  lastcommunicationat: iso.nullable(),
  bound_at: iso,
});
export type SubDeviceItem = z.infer<typeof subDeviceItem>;

export const gatewayRuleDetail = gatewayRuleItem.extend({ sub_devices: z.array(subDeviceItem) });
export type GatewayRuleDetail = z.infer<typeof gatewayRuleDetail>;

/** One sn of a bind or unbind request: code 0 done, otherwise the code of why not (and its text). */
export const gatewayBindResult = z.object({
  results: z.array(z.object({ sn: text(), code: z.number().int(), message: text() })),
  done: z.number().int(),
  failed: z.number().int(),
});
export type GatewayBindResult = z.infer<typeof gatewayBindResult>;
