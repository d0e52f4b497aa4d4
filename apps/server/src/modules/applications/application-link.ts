import { timingSafeEqual } from 'node:crypto';
import { APPLICATION_FILE_TOKEN_RULE } from '@cellhub/contract/applications';
import type { SecretBox } from '../../lib/crypto';

/** What a download link grants: the package of one version until `expiresAt` (unix ms). */
export interface LinkGrant {
  versionId: number;
  expiresAt: number;
}

const mac = (box: SecretBox, g: LinkGrant) => box.hmac(`application-download:${g.versionId}.${g.expiresAt}`);

/**
 * `<version>.<expiry base36>.<HMAC-SHA256 hex>` under the server's master key, as the OTA download token: nothing is
 * stored, another instance verifies it alike, and changing any part breaks the signature.
 */
export function signLink(box: SecretBox, grant: LinkGrant): string {
  return `${grant.versionId}.${grant.expiresAt.toString(36)}.${mac(box, grant)}`;
}

/** The grant of a well-formed token with a valid signature (expiry not checked here), else undefined. */
export function verifyLink(box: SecretBox, token: string): LinkGrant | undefined {
  if (!APPLICATION_FILE_TOKEN_RULE.test(token)) return undefined;
  const [version, expiry, sig] = token.split('.') as [string, string, string];
  const grant = { versionId: Number(version), expiresAt: parseInt(expiry, 36) };
  if (!Number.isSafeInteger(grant.expiresAt)) return undefined;
  const expected = Buffer.from(mac(box, grant), 'hex');
  const given = Buffer.from(sig, 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given) ? grant : undefined;
}
