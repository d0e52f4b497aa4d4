/**
 * What an access key may be allowed to do (modules/access-keys). A signed-in person carries no scopes
 * and may do whatever their role and ownership allow; an actor that carries scopes is held to them as well.
 */
export const ACCESS_SCOPES = [
  /** See devices, their properties, raw messages and logs. */
  'devices:read',
  /** Send commands and push configuration to devices. */
  'devices:control',
  /** Create, change, bind and delete devices. */
  'devices:write',
  /** Firmware reads and OTA tasks over the devices the key's holder owns (OTA is the owner's alone). */
  'ota',
  /** The user's SIM cards, packages and orders. */
  'sim',
  /** Alert rules, contacts and alert history. */
  'alerts',
] as const;
export type AccessScope = (typeof ACCESS_SCOPES)[number];
