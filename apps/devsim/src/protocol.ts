import { createHmac } from 'node:crypto';

// Topics, payload shapes and the hex rule come from @cellhub/contract/protocol, which the server reads too; only
// what needs Node (node:crypto) lives here, since the contract stays browser-safe.

/** The `hmac:<unix-ms>:<hex HMAC-SHA256(secret, sn + ":" + unix-ms)>` password of PROTOCOL.md. */
export function hmacPassword(sn: string, secret: string, nowMs = Date.now()): string {
  const sig = createHmac('sha256', secret).update(`${sn}:${nowMs}`).digest('hex');
  return `hmac:${nowMs}:${sig}`;
}
