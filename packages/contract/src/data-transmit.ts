/**
 * Data transmission (seed section 3 "Transmission rule": name, status, group, management and edge devices): a
 * virtual serial bus over cellular. Raw bytes an edge device sends (`P/up/raw`) go to every management device of the
 * rule (`P/down/raw`); a management device's bytes go to the edge devices: all of them (`address_mode` "all"), or,
 * with `address_mode` "modbus", to the edge devices whose Modbus slave addresses hold the frame's first byte
 * (address 0, the Modbus broadcast, reaches all of them). docs/data-transmit.md describes the rules.
 */
import { z } from 'zod';
import { pageQuery } from './common';
import { SN_RULE } from './protocol';
import { text } from './text';

/** Management devices a rule may have (the SCADA side: usually one). */
export const TRANSMIT_MANAGEMENT_MAX = 20;
/** Edge devices a rule may have. */
export const TRANSMIT_EDGE_MAX = 200;
/** Modbus slave addresses one edge device may answer for (the meters on its RS-485 bus). */
export const TRANSMIT_ADDRESSES_MAX = 32;

export const TRANSMIT_ADDRESS_MODES = ['all', 'modbus'] as const;
export const transmitAddressMode = z.enum(TRANSMIT_ADDRESS_MODES);
export type TransmitAddressMode = z.infer<typeof transmitAddressMode>;

export const TRANSMIT_ROLES = ['management', 'edge'] as const;
export const transmitRole = z.enum(TRANSMIT_ROLES);
export type TransmitRole = z.infer<typeof transmitRole>;

export const transmitStatus = z.union([z.literal(0), z.literal(1)]);

const sn = text().trim().regex(SN_RULE, 'sn_rule');
const id = z.coerce.number().int().positive().max(2_147_483_647);
const slaveAddress = z.number().int().min(1).max(247);

export const dataTransmitIdParams = z.object({ id });

/** An edge device of a rule with the Modbus slave addresses behind it (used with `address_mode` "modbus"). */
export const transmitEdgeInput = z.object({
  sn,
  addresses: z.array(slaveAddress).max(TRANSMIT_ADDRESSES_MAX).default([]),
});
export type TransmitEdgeInput = z.input<typeof transmitEdgeInput>;

/**
 * POST /api/data-transmit and PUT /api/data-transmit/{id} (the whole rule). Every device must be one the caller
 * controls (owns, or holds a control share of): 10117 when they cannot see it, 10108 with a view share. A device may
 * be in several rules, but only once in one (87001 both roles, 87002 twice); in "modbus" mode every edge device
 * needs at least one address and no address may belong to two edge devices (87003).
 */
export const dataTransmitBody = z.object({
  name: text().trim().min(1).max(64),
  status: transmitStatus.default(1),
  group: text().trim().max(64).default(''),
  address_mode: transmitAddressMode.default('all'),
  management: z.array(sn).min(1).max(TRANSMIT_MANAGEMENT_MAX),
  edge: z.array(transmitEdgeInput).min(1).max(TRANSMIT_EDGE_MAX),
});
export type DataTransmitBody = z.input<typeof dataTransmitBody>;

/** PUT /api/data-transmit/{id}/status: the list's switch. */
export const dataTransmitStatusBody = z.object({ status: transmitStatus });

export const dataTransmitListQuery = pageQuery.extend({
  /** In the name. */
  keyword: text().trim().max(64).optional(),
  group: text().trim().max(64).optional(),
  status: z.enum(['0', '1']).optional(),
});
export type DataTransmitListQuery = z.input<typeof dataTransmitListQuery>;

/** A device as a rule lists it. */
export const transmitDeviceRef = z.object({
  sn: text(),
  name: text(),
  role: transmitRole,
  addresses: z.array(z.number().int()),
});

export const dataTransmitItem = z.object({
  id: z.number().int(),
  name: text(),
  status: transmitStatus,
  group: text(),
  address_mode: transmitAddressMode,
  /** The owner's account name (admins see every user's rules). */
  owner: text(),
  devices: z.array(transmitDeviceRef),
  createdat: text(),
  updatedat: text(),
});
export type DataTransmitItem = z.infer<typeof dataTransmitItem>;

/**
 * Per device of a rule, since the rule was made: frames and bytes it sent into the rule (`up`) and received from it
 * (`down`), frames that could not reach it (`drops`: offline, no longer controlled by the rule's owner, push failed)
 * with the last reason's code, and the latency of its last frames: milliseconds from the source's frame reaching the
 * server to the broker taking the copy for this device (`latency_ms` the last, `latency_avg_ms` the mean of the last
 * 16; null before the first).
 */
export const transmitCounters = z.object({
  frames_up: z.number().int(),
  bytes_up: z.number().int(),
  frames_down: z.number().int(),
  bytes_down: z.number().int(),
  drops: z.number().int(),
  last_error: z.number().int().nullable(),
  last_error_at: text().nullable(),
  latency_ms: z.number().nullable(),
  latency_avg_ms: z.number().nullable(),
  last_frame_at: text().nullable(),
});
export type TransmitCounters = z.infer<typeof transmitCounters>;

export const transmitDeviceDetail = transmitDeviceRef.extend({
  product_key: text(),
  online: z.union([z.literal(0), z.literal(1)]),
  /** False when the rule's owner no longer controls the device (share ended): its frames stop. */
  allowed: z.boolean(),
  /** The other rules of the rule's owner this device is in. */
  other_rules: z.array(z.object({ id: z.number().int(), name: text(), role: transmitRole })),
  counters: transmitCounters,
});
export type TransmitDeviceDetail = z.infer<typeof transmitDeviceDetail>;

export const dataTransmitDetail = dataTransmitItem.extend({
  devices: z.array(transmitDeviceDetail),
});
export type DataTransmitDetail = z.infer<typeof dataTransmitDetail>;

/** GET /api/data-transmit/groups: the group names in use, for the list's filter. */
export const dataTransmitGroups = z.array(text());

/** GET /api/data-transmit/devices: devices the caller may put in a rule (controls), with the rules they are in. */
export const transmitCandidateQuery = pageQuery.extend({
  keyword: text().trim().max(64).optional(),
});
export const transmitCandidate = z.object({
  sn: text(),
  name: text(),
  product_key: text(),
  online: z.union([z.literal(0), z.literal(1)]),
  rules: z.array(z.object({ id: z.number().int(), name: text(), role: transmitRole })),
});
export type TransmitCandidate = z.infer<typeof transmitCandidate>;

/**
 * `data-transmit.counters` on /api/ws: the totals of the devices of a rule whose counters changed (at most about one
 * a second per rule), sent to the rule's owner and to admins.
 */
export const dataTransmitEvent = z.object({
  type: z.literal('data-transmit.counters'),
  /** The rule id. */
  id: z.number().int(),
  devices: z.array(transmitCounters.extend({ sn: text() })),
  at: text(),
});
export type DataTransmitEvent = z.infer<typeof dataTransmitEvent>;
