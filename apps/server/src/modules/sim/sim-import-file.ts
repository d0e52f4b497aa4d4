/**
 * Reads a SIM import file (.csv UTF-8 or .xlsx) into a header-keyed table. As for device imports, the type is
 * decided by the file's bytes (a renamed file is refused with 50002) and an .xlsx is checked for its unpacked size
 * before it is opened.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { AppError, formError } from '../../lib/app-error';
import { assertSafeXlsx } from '../../lib/xlsx-guard';

export interface TableRow {
  /** Line in the file; the header is row 1. */
  row: number;
  values: Record<string, string>;
}

const MAX_XLSX_INFLATED = 64 * 1024 * 1024;
const isZip = (b: Buffer) => b.length >= 4 && b.readUInt32LE(0) === 0x04034b50;
const isOle2 = (b: Buffer) =>
  b.length >= 8 && b.readUInt32BE(0) === 0xd0cf11e0 && b.readUInt32BE(4) === 0xa1b11ae1;

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
      delimiter: [',', ';', '\t'],
    }) as string[][];
  } catch (err) {
    throw new AppError(50003, 400, undefined, [
      { field: 'file', message: err instanceof Error ? err.message : 'unreadable CSV' },
    ]);
  }
}

async function readXlsx(buf: Buffer, maxRows: number): Promise<string[][]> {
  // Sizes, names and XML of every part, checked before exceljs inflates anything (lib/xlsx-guard.ts).
  assertSafeXlsx(buf, MAX_XLSX_INFLATED);
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.load(buf as unknown as ArrayBuffer);
  } catch {
    throw new AppError(50003, 400, undefined, [{ field: 'file', message: 'not a readable .xlsx workbook' }]);
  }
  const ws = wb.worksheets[0];
  if (!ws) return [];
  if (ws.actualRowCount > maxRows + 1) throw formError('file', `at most ${maxRows} rows per file`);
  const table: string[][] = [];
  ws.eachRow({ includeEmpty: true }, (row, n) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => {
      // A long number (an ICCID typed into a number cell) has lost its last digits: shown in exponent form it
      // is refused instead of being read as a wrong identifier.
      const v = cell.value;
      cells[col - 1] =
        typeof v === 'number' && !Number.isSafeInteger(v) ? v.toExponential() : (cell.text ?? '');
    });
    table[n - 1] = Array.from(cells, (c) => c ?? '');
  });
  return Array.from(table, (r) => r ?? []);
}

/**
 * The file's data rows keyed by column: headers are matched case-insensitively through `columnOf` (unknown headers
 * are ignored); `required` must be among them (50003 otherwise). Blank rows are skipped.
 */
export async function readTable(
  buf: Buffer,
  filename: string,
  options: { maxRows: number; required: string; columnOf: (header: string) => string | undefined },
): Promise<TableRow[]> {
  const name = filename.toLowerCase();
  let table: string[][];
  if (isZip(buf)) {
    if (!name.endsWith('.xlsx')) throw new AppError(50002, 415, 'Only .csv and .xlsx files can be imported');
    table = await readXlsx(buf, options.maxRows);
  } else {
    if (isOle2(buf) || !name.endsWith('.csv'))
      throw new AppError(50002, 415, 'Only .csv and .xlsx files can be imported');
    table = readCsv(buf);
  }
  const [header, ...body] = table;
  if (!header) throw new AppError(50003, 400, undefined, [{ field: 'file', message: 'the file is empty' }]);
  const columns = header.map((h) => options.columnOf(h.trim().toLowerCase()));
  if (!columns.includes(options.required)) {
    throw new AppError(50003, 400, undefined, [
      { field: 'file', message: `no "${options.required}" column in the first row` },
    ]);
  }
  if (body.length > options.maxRows) throw formError('file', `at most ${options.maxRows} rows per file`);
  const rows: TableRow[] = [];
  body.forEach((cells, i) => {
    const values: Record<string, string> = {};
    columns.forEach((c, j) => {
      const v = cells[j]?.trim();
      if (c && v) values[c] = v;
    });
    if (Object.keys(values).length > 0) rows.push({ row: i + 2, values });
  });
  return rows;
}
