/**
 * Reads a device import file (.csv or .xlsx) into rows keyed by the contract's import columns. The file's type is
 * decided by its bytes, not by the name or the browser's mime type: a renamed file is refused (50002) rather than
 * half-parsed.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { DEVICE_IMPORT_COLUMNS, type DeviceImportColumn, MAX_IMPORT_ROWS } from '@cellhub/contract/devices';
import { AppError, formError } from '../../lib/app-error';
import { assertSafeXlsx } from '../../lib/xlsx-guard';

export interface ImportRow {
  /** Line in the file; the header is row 1. */
  row: number;
  values: Partial<Record<DeviceImportColumn, string>>;
}

/** A 5 MB zip can inflate to gigabytes; spreadsheets of MAX_IMPORT_ROWS devices stay far below this. */
const MAX_XLSX_INFLATED = 64 * 1024 * 1024;

/** Header texts people use (the console's template, exports of other systems, Chinese spreadsheets). */
const ALIASES: Record<string, DeviceImportColumn> = {
  serial: 'sn',
  'serial number': 'sn',
  序列号: 'sn',
  设备序列号: 'sn',
  名称: 'name',
  设备名称: 'name',
  'device name': 'name',
  描述: 'description',
  备注: 'description',
  地址: 'address',
  电话: 'phone',
  手机号: 'phone',
};

function columnOf(header: string): DeviceImportColumn | undefined {
  const h = header.trim().toLowerCase();
  if ((DEVICE_IMPORT_COLUMNS as readonly string[]).includes(h)) return h as DeviceImportColumn;
  return ALIASES[h];
}

const isZip = (b: Buffer) => b.length >= 4 && b.readUInt32LE(0) === 0x04034b50;
// The OLE2 container of .xls (Excel 97-2003), which we do not read.
const isOle2 = (b: Buffer) =>
  b.length >= 8 && b.readUInt32BE(0) === 0xd0cf11e0 && b.readUInt32BE(4) === 0xa1b11ae1;

/** Sum of the uncompressed sizes in the zip's central directory, or undefined when it cannot be found. */
export function zipInflatedSize(b: Buffer): number | undefined {
  // End of central directory: 22 bytes plus a comment of at most 65535.
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65_535); i--) {
    if (b.readUInt32LE(i) !== 0x06054b50) continue;
    const entries = b.readUInt16LE(i + 10);
    let p = b.readUInt32LE(i + 16);
    let total = 0;
    for (let n = 0; n < entries; n++) {
      if (p + 46 > b.length || b.readUInt32LE(p) !== 0x02014b50) return undefined;
      total += b.readUInt32LE(p + 24);
      p += 46 + b.readUInt16LE(p + 28) + b.readUInt16LE(p + 30) + b.readUInt16LE(p + 32);
    }
    return total;
  }
  return undefined;
}

function toRows(table: string[][]): ImportRow[] {
  const [header, ...body] = table;
  if (!header) throw formError('file', 'the file is empty');
  const columns = header.map((h) => columnOf(h));
  if (!columns.includes('sn')) throw formError('file', 'no "sn" column in the first row');
  if (body.length > MAX_IMPORT_ROWS) throw formError('file', `at most ${MAX_IMPORT_ROWS} rows per file`);
  const rows: ImportRow[] = [];
  body.forEach((cells, i) => {
    const values: ImportRow['values'] = {};
    columns.forEach((c, j) => {
      const v = cells[j]?.trim();
      if (c && v) values[c] = v;
    });
    // Blank lines (a trailing newline, spacer rows) are not rows.
    if (Object.keys(values).length > 0) rows.push({ row: i + 2, values });
  });
  return rows;
}

function readCsv(buf: Buffer): string[][] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    throw new AppError(50002, 415, 'A CSV file must be UTF-8 text');
  }
  if (text.includes('\0')) throw new AppError(50002, 415, 'A CSV file must be UTF-8 text');
  try {
    return parseCsv(text, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      // Spreadsheets saved in some locales separate with ';' or tabs.
      delimiter: [',', ';', '\t'],
    }) as string[][];
  } catch (err) {
    throw new AppError(50003, 400, undefined, [
      { field: 'file', message: err instanceof Error ? err.message : 'unreadable CSV' },
    ]);
  }
}

async function readXlsx(buf: Buffer): Promise<string[][]> {
  // Sizes, names and XML of every part, checked before exceljs inflates anything (lib/xlsx-guard.ts).
  assertSafeXlsx(buf, MAX_XLSX_INFLATED);
  // Loaded on first import: it is large and most server processes never need it.
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.load(buf as unknown as ArrayBuffer);
  } catch {
    throw new AppError(50003, 400, undefined, [{ field: 'file', message: 'not a readable .xlsx workbook' }]);
  }
  const ws = wb.worksheets[0];
  if (!ws) return [];
  if (ws.actualRowCount > MAX_IMPORT_ROWS + 1)
    throw formError('file', `at most ${MAX_IMPORT_ROWS} rows per file`);
  const table: string[][] = [];
  ws.eachRow({ includeEmpty: true }, (row, n) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => {
      // `text` renders rich text, hyperlinks, formulas (their result) and numbers as the sheet shows them.
      cells[col - 1] = cell.text ?? '';
    });
    table[n - 1] = Array.from(cells, (c) => c ?? '');
  });
  return Array.from(table, (r) => r ?? []);
}

export async function readImportFile(buf: Buffer, filename: string): Promise<ImportRow[]> {
  const name = filename.toLowerCase();
  if (isZip(buf)) {
    if (!name.endsWith('.xlsx')) throw new AppError(50002, 415, 'Only .csv and .xlsx files can be imported');
    return toRows(await readXlsx(buf));
  }
  if (isOle2(buf) || !name.endsWith('.csv')) {
    throw new AppError(50002, 415, 'Only .csv and .xlsx files can be imported');
  }
  return toRows(readCsv(buf));
}
