import { type ParsedTopic, parseTopic, topicPrefix } from '@cellhub/contract/protocol';
import type { DeviceRef } from '../modules/devices/device-ref';

/**
 * The device topic ACL (docs/device-protocol.md): a device publishes only to `dev/{pk}/{sn}/up/<kind>` and
 * subscribes only to `dev/{pk}/{sn}/down/#`, `.../down/+` or `.../down/<kind>`. One definition for every broker:
 * the embedded adapter asks it per packet, the EMQX authorisation hook per request, and the Mosquitto
 * dynamic-security provisioning writes `deviceTopicGrants` into each device's role.
 */
type AclDevice = Pick<DeviceRef, 'productKey' | 'sn'>;

/** The parsed topic when the device may publish to it, undefined otherwise. */
export function mayPublish(
  device: AclDevice,
  topic: string,
): (ParsedTopic & { direction: 'up' }) | undefined {
  const parsed = parseTopic(topic);
  if (!parsed || parsed.productKey !== device.productKey || parsed.sn !== device.sn) return undefined;
  return parsed.direction === 'up' ? (parsed as ParsedTopic & { direction: 'up' }) : undefined;
}

/** Whether the device may subscribe to this topic filter. */
export function maySubscribe(device: AclDevice, filter: string): boolean {
  const prefix = `${topicPrefix(device.productKey, device.sn)}/down/`;
  if (!filter.startsWith(prefix)) return false;
  return /^(#|\+|[a-z_]+)$/.test(filter.slice(prefix.length));
}

/**
 * The same rules as MQTT topic patterns, for brokers that hold ACLs themselves: publish to `up/+` (one level, as
 * `mayPublish` parses it), subscribe to filters under `down/#` (a pattern ACL matches `#`, `+` and one kind alike).
 * Serial numbers and product keys hold no `+`, `#` or `/` (SN_RULE), so they are literal here.
 */
export function deviceTopicGrants(device: AclDevice): { publish: string; subscribe: string } {
  const prefix = topicPrefix(device.productKey, device.sn);
  return { publish: `${prefix}/up/+`, subscribe: `${prefix}/down/#` };
}
