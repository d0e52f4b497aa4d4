import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets at rest. Format: `v1:<iv>:<tag>:<ciphertext>` (base64url parts), AES-256-GCM under a key derived with
 * HKDF-SHA256 from SECRET_KEY. The version prefix lets a later key or algorithm coexist with old rows.
 * `context` is bound as associated data so a ciphertext copied to another setting does not decrypt there.
 */
const VERSION = 'v1';

export interface SecretBox {
  encrypt(plaintext: string, context?: string): string;
  decrypt(sealed: string, context?: string): string;
  /** Keyed hash for short secrets (SMS codes): a database dump alone cannot brute-force them. */
  hmac(value: string): string;
}

export function isSealed(value: string): boolean {
  return value.startsWith(`${VERSION}:`);
}

export function createSecretBox(secretKey: string): SecretBox {
  const derive = (info: string) =>
    Buffer.from(hkdfSync('sha256', Buffer.from(secretKey, 'utf8'), Buffer.alloc(0), info, 32));
  const encKey = derive('cellhub/at-rest/v1');
  const macKey = derive('cellhub/hmac/v1');

  return {
    encrypt(plaintext, context = '') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join(
        ':',
      );
    },
    decrypt(sealed, context = '') {
      const parts = sealed.split(':');
      if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('unsupported sealed value');
      const [, iv, tag, body] = parts as [string, string, string, string];
      const decipher = createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      // final() throws when the tag does not match: tampered data or the wrong key.
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
    hmac(value) {
      return createHmac('sha256', macKey).update(value).digest('hex');
    },
  };
}

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/** Opaque bearer tokens: 256 random bits. Only their SHA-256 is stored. */
export const newToken = (): string => randomBytes(32).toString('base64url');
