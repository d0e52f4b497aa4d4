/** 13812345678 → 138****5678: enough to recognise one's own number on a shared screen. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/^\+?86/, '');
  if (digits.length < 7) return phone;
  return `${phone.slice(0, phone.length - digits.length)}${digits.slice(0, 3)}****${digits.slice(-4)}`;
}
