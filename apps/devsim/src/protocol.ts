import { createHmac } from 'node:crypto';

/** Topic prefix of one device (PROTOCOL.md): `dev/{product_key}/{sn}`. */
export const topicPrefix = (productKey: string, sn: string) => `dev/${productKey}/${sn}`;

/** The `hmac:<unix-ms>:<hex HMAC-SHA256(secret, sn + ":" + unix-ms)>` password of PROTOCOL.md. */
export function hmacPassword(sn: string, secret: string, nowMs = Date.now()): string {
  const sig = createHmac('sha256', secret).update(`${sn}:${nowMs}`).digest('hex');
  return `hmac:${nowMs}:${sig}`;
}

/** Hex command data: even length, hex digits only, no `0x` prefix (seed section 5). */
export const isValidHex = (data: string) => data.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(data);
