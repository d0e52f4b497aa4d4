import { PASSWORD_RULE } from '@cellhub/contract/auth';

// Letters and digits people can read aloud and type without mistaking one for another (no 0/O, 1/l/I).
const LOWER = 'abcdefghijkmnpqrstuvwxyz';
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';
const ALL = LOWER + UPPER + DIGITS;

function pick(set: string, random: (n: number) => number): string {
  return set[random(set.length)] ?? set[0]!;
}

/** A uniform index below `n` from the browser's CSPRNG (rejection sampling: no modulo bias). */
function cryptoIndex(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const buf = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buf);
    if (buf[0]! < limit) return buf[0]! % n;
  }
}

/**
 * An initial password that meets the seed's rule (PASSWORD_RULE: digits, upper and lower case, no spaces): one of
 * each class, the rest from all of them, shuffled so the classes are not in fixed places.
 */
export function generatePassword(length = 12, random: (n: number) => number = cryptoIndex): string {
  const chars = [pick(LOWER, random), pick(UPPER, random), pick(DIGITS, random)];
  while (chars.length < length) chars.push(pick(ALL, random));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  const out = chars.join('');
  if (!PASSWORD_RULE.test(out)) throw new Error('generated password misses the rule');
  return out;
}
