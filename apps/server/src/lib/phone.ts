/**
 * One stored form per number: mainland China numbers without their +86/86 prefix (how people type them),
 * other countries in E.164 with the plus.
 */
export function normalizePhone(phone: string): string {
  const p = phone.trim().replace(/[\s-]/g, '');
  const cn = /^(?:\+?86)?(1[3-9]\d{9})$/.exec(p);
  if (cn) return cn[1]!;
  return p;
}
