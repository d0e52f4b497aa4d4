/**
 * Checks an uploaded .xlsx (a zip) before a spreadsheet library opens it. The library inflates whole entries into
 * memory and believes the sizes the zip declares, so a 2 MB upload whose sheet declares 2 KB but inflates to 2 GB
 * would take the process down. Here every entry is inflated once with its output capped at the size it declares:
 * an entry that inflates past it, a total past `maxInflated`, too many entries, entry names that leave the archive
 * (`../`, absolute, NUL) and XML parts with a DOCTYPE (entity declarations: XXE, billion laughs) are refused before
 * the workbook is read. A real workbook passes all of them.
 */
import { inflateRawSync } from 'node:zlib';
import { AppError } from './app-error';

/** Workbooks have tens of parts; thousands are an attack on the reader, not a spreadsheet. */
export const XLSX_MAX_ENTRIES = 1000;

const broken = (message: string) => new AppError(50003, 400, undefined, [{ field: 'file', message }]);
const tooLarge = () => new AppError(50001, 413, 'The spreadsheet is too large once unpacked');

/** A name that would leave the directory it was unpacked into, or that no office program writes. */
export function unsafeEntryName(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(name)) return true;
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return true;
  return name.split('/').some((segment) => segment === '..');
}

/** Throws the refusal of a zip that cannot safely be opened as a workbook; returns its inflated size otherwise. */
export function assertSafeXlsx(b: Buffer, maxInflated: number): number {
  let end = -1;
  // End of central directory: 22 bytes plus a comment of at most 65535.
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65_535); i--) {
    if (b.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw broken('broken zip');
  const entries = b.readUInt16LE(end + 10);
  if (entries > XLSX_MAX_ENTRIES) throw tooLarge();
  let p = b.readUInt32LE(end + 16);
  let total = 0;
  for (let n = 0; n < entries; n++) {
    if (p + 46 > b.length || b.readUInt32LE(p) !== 0x02014b50) throw broken('broken zip');
    const flags = b.readUInt16LE(p + 8);
    const method = b.readUInt16LE(p + 10);
    const compressed = b.readUInt32LE(p + 20);
    const size = b.readUInt32LE(p + 24);
    const nameLength = b.readUInt16LE(p + 28);
    const local = b.readUInt32LE(p + 42);
    if (p + 46 + nameLength > b.length) throw broken('broken zip');
    const name = b.toString('utf8', p + 46, p + 46 + nameLength);
    p += 46 + nameLength + b.readUInt16LE(p + 30) + b.readUInt16LE(p + 32);
    if (unsafeEntryName(name)) throw broken('a part of the zip has an unsafe name');
    if (flags & 1) throw broken('encrypted zip');
    total += size;
    if (total > maxInflated) throw tooLarge();
    if (local + 30 > b.length || b.readUInt32LE(local) !== 0x04034b50) throw broken('broken zip');
    const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28);
    if (start + compressed > b.length) throw broken('broken zip');
    const data = b.subarray(start, start + compressed);
    let out: Buffer;
    if (method === 0) {
      if (compressed !== size) throw broken('broken zip');
      out = data;
    } else if (method === 8) {
      try {
        // One byte over the declared size is enough to know it lied; nothing past it is ever made.
        out = inflateRawSync(data, { maxOutputLength: size + 1 });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
        throw broken('broken zip');
      }
      if (out.length > size) throw tooLarge();
      if (out.length !== size) throw broken('broken zip');
    } else {
      throw broken('unsupported zip compression');
    }
    if (/\.(xml|rels|vml)$/i.test(name) && (out.includes('<!DOCTYPE') || out.includes('<!ENTITY'))) {
      throw broken('XML with a DOCTYPE is not read');
    }
  }
  return total;
}
