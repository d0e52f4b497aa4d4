import { randomInt } from 'node:crypto';
import argon2 from 'argon2';
import { PASSWORD_RULE } from '@cellhub/contract/auth';

// OWASP's argon2id baseline (19 MiB, 2 passes) keeps sign-in well under 100 ms on one core.
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, OPTIONS);

let dummyHash: Promise<string> | undefined;

/**
 * `hash` undefined means "no such account": a hash is still verified so the answer takes as long as for a real
 * account and timing does not reveal which usernames exist.
 */
export async function verifyPassword(hash: string | undefined, password: string): Promise<boolean> {
  if (hash === undefined) {
    dummyHash ??= hashPassword('not-a-real-password-Zz9');
    await argon2.verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';

/** A random password that satisfies the contract's rule (no look-alike characters: it is typed by hand). */
export function randomPassword(length = 16): string {
  const all = LOWER + UPPER + DIGITS;
  for (;;) {
    const chars = [LOWER, UPPER, DIGITS].map((set) => set[randomInt(set.length)]!);
    while (chars.length < length) chars.push(all[randomInt(all.length)]!);
    for (let i = chars.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [chars[i], chars[j]] = [chars[j]!, chars[i]!];
    }
    const pw = chars.join('');
    if (PASSWORD_RULE.test(pw)) return pw;
  }
}
