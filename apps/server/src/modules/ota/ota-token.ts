import { timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../../lib/crypto';

/** What a download token grants: the file of one upgrade log row's attempt, until `expiresAt` (unix ms). */
export interface DownloadGrant {
  rowId: number;
  attempt: number;
  expiresAt: number;
}

const mac = (box: SecretBox, g: DownloadGrant) =>
  box.hmac(`ota-download:${g.rowId}.${g.attempt}.${g.expiresAt}`);

/**
 * `<row>.<attempt>.<expiry base36>.<HMAC-SHA256 hex>` under the server's master key: nothing is stored, a
 * restart or another instance verifies it alike, and changing any part breaks the signature.
 */
export function signDownloadToken(box: SecretBox, grant: DownloadGrant): string {
  return `${grant.rowId}.${grant.attempt}.${grant.expiresAt.toString(36)}.${mac(box, grant)}`;
}

/** The grant of a well-formed token with a valid signature (not yet checked for expiry), else undefined. */
export function verifyDownloadToken(box: SecretBox, token: string): DownloadGrant | undefined {
  const m = /^(\d{1,10})\.(\d{1,4})\.([0-9a-z]{1,11})\.([0-9a-f]{64})$/.exec(token);
  if (!m) return undefined;
  const grant: DownloadGrant = {
    rowId: Number(m[1]),
    attempt: Number(m[2]),
    expiresAt: parseInt(m[3]!, 36),
  };
  if (!Number.isSafeInteger(grant.expiresAt)) return undefined;
  const expected = Buffer.from(mac(box, grant), 'hex');
  const given = Buffer.from(m[4]!, 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given) ? grant : undefined;
}
