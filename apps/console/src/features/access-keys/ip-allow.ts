/**
 * The client-side check of the allow-list, so a typo is named under the field before the request. It is the
 * contract's own rule (an IPv4 or IPv6 address, or a CIDR block of either), the one the server applies again.
 */
import { isIpOrCidr } from '@cellhub/contract/access-keys';

/** Whether `value` (trimmed) is an address or a CIDR block the allow-list takes. */
export function isAllowEntry(value: string): boolean {
  return isIpOrCidr(value.trim());
}

/** The entries of a list that are not addresses or blocks, in their order, for the form's message. */
export function badAllowEntries(values: readonly string[]): string[] {
  return values.filter((v) => !isAllowEntry(v));
}
