export interface CredentialLine {
  sn: string;
  device_name?: string;
  device_secret: string;
}

/**
 * Lines of `sn,device name,secret` (the name may be empty). Blank lines are skipped; a secret may itself contain
 * commas (base64 does not, but passwords may), so everything after the second comma is the secret.
 */
export function parseCredentialLines(text: string): { items: CredentialLine[]; badLine?: number } {
  const items: CredentialLine[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const first = line.indexOf(',');
    const second = first < 0 ? -1 : line.indexOf(',', first + 1);
    if (first < 0 || second < 0) return { items, badLine: i + 1 };
    const sn = line.slice(0, first).trim();
    const name = line.slice(first + 1, second).trim();
    const secret = line.slice(second + 1).trim();
    if (!sn || !secret) return { items, badLine: i + 1 };
    items.push(name ? { sn, device_name: name, device_secret: secret } : { sn, device_secret: secret });
  }
  return { items };
}
