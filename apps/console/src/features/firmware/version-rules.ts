import { CHECKSUM_HEX_LENGTH, type ChecksumAlgorithm, FIRMWARE_EXTENSIONS } from '@cellhub/contract/firmware';

/** The `accept` list of the file picker. */
export const FIRMWARE_ACCEPT = FIRMWARE_EXTENSIONS.join(',');

/** Whether a file name ends with one of the endings the server accepts (it checks the bytes too). */
export function hasFirmwareExtension(name: string): boolean {
  const lower = name.trim().toLowerCase();
  return FIRMWARE_EXTENSIONS.some((e) => lower.endsWith(e) && lower.length > e.length);
}

/** Empty (the server's own digest is used) or the hex digest of the algorithm's length. */
export function checksumFits(checksum: string | undefined, algorithm: ChecksumAlgorithm): boolean {
  const v = (checksum ?? '').trim();
  if (v === '') return true;
  return new RegExp(`^[0-9A-Fa-f]{${CHECKSUM_HEX_LENGTH[algorithm]}}$`).test(v);
}
