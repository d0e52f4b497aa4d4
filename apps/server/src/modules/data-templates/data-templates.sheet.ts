/**
 * The variable table as an .xlsx sheet (exceljs): the export writes one header row of column keys (so the import
 * reads back exactly what it wrote) and one row per variable; the import reads the first sheet, finds the columns by key or by their Chinese / English title,
 * and hands each non-blank row on with its line number. The file type is decided by its bytes (a zip), and a zip
 * that inflates past a bound is refused before exceljs reads it.
 */
import { VARIABLE_SHEET_COLUMNS, VARIABLES_MAX, type VariableItem } from '@cellhub/contract/data-templates';
import { AppError, formError } from '../../lib/app-error';
import { assertSafeXlsx } from '../../lib/xlsx-guard';
import type { SheetRow } from './data-templates.service';

export const MAX_IMPORT_BYTES = 2 * 1024 * 1024;
const MAX_INFLATED = 32 * 1024 * 1024;

type Column = (typeof VARIABLE_SHEET_COLUMNS)[number];

/** Titles people write over the columns (the console's Chinese and English labels). */
const TITLES: Record<string, Column> = {
  名称: 'name',
  变量名称: 'name',
  标识: 'tag',
  单位: 'unit',
  寄存器类型: 'register_type',
  寄存器地址: 'register_address',
  数据格式: 'data_format',
  字节序: 'byte_order',
  小数位: 'decimals',
  读写: 'access',
  采集公式: 'capture_formula',
  控制公式: 'control_formula',
  上报方式: 'report_method',
  采集周期: 'sampling_cycle_s',
  功能码: 'function_code',
  'register type': 'register_type',
  'register address': 'register_address',
  'data format': 'data_format',
  'byte order': 'byte_order',
  'decimal places': 'decimals',
  'capture formula': 'capture_formula',
  'control formula': 'control_formula',
  'report method': 'report_method',
  'sampling cycle': 'sampling_cycle_s',
  'function code': 'function_code',
};

function columnOf(header: string): Column | undefined {
  const h = header.trim().toLowerCase();
  if ((VARIABLE_SHEET_COLUMNS as readonly string[]).includes(h)) return h as Column;
  return TITLES[h] ?? TITLES[header.trim()];
}

const isZip = (b: Buffer) => b.length >= 4 && b.readUInt32LE(0) === 0x04034b50;

export async function readVariableSheet(buf: Buffer, filename: string): Promise<SheetRow[]> {
  if (!isZip(buf) || !filename.toLowerCase().endsWith('.xlsx'))
    throw new AppError(50002, 415, 'Only .xlsx files can be imported');
  // Sizes, names and XML of every part, checked before exceljs inflates anything (lib/xlsx-guard.ts).
  assertSafeXlsx(buf, MAX_INFLATED);
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.load(buf as unknown as ArrayBuffer);
  } catch {
    throw new AppError(50003, 400, undefined, [{ field: 'file', message: 'not a readable .xlsx workbook' }]);
  }
  const ws = wb.worksheets[0];
  if (!ws) throw formError('file', 'the file is empty');
  if (ws.actualRowCount > VARIABLES_MAX + 1)
    throw formError('file', `at most ${VARIABLES_MAX} rows per file`);
  const table: string[][] = [];
  ws.eachRow({ includeEmpty: true }, (row, n) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => {
      cells[col - 1] = cell.text ?? '';
    });
    table[n - 1] = Array.from(cells, (c) => c ?? '');
  });
  const [header, ...body] = Array.from(table, (r) => r ?? []);
  if (!header) throw formError('file', 'the file is empty');
  const columns = header.map((h) => columnOf(h));
  if (!columns.includes('tag')) throw formError('file', 'no "tag" column in the first row');
  const rows: SheetRow[] = [];
  body.forEach((cells, i) => {
    const values: Record<string, string> = {};
    columns.forEach((c, j) => {
      const v = cells[j];
      if (c && v !== undefined && v.trim() !== '') values[c] = v;
    });
    if (Object.keys(values).length > 0) rows.push({ row: i + 2, values });
  });
  return rows;
}

export async function writeVariableSheet(rows: VariableItem[]): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('variables');
  ws.addRow([...VARIABLE_SHEET_COLUMNS]);
  ws.getRow(1).font = { bold: true };
  for (const v of rows) ws.addRow(VARIABLE_SHEET_COLUMNS.map((c) => v[c]));
  VARIABLE_SHEET_COLUMNS.forEach((c, i) => {
    ws.getColumn(i + 1).width = Math.max(10, c.length + 2);
  });
  return Buffer.from(await wb.xlsx.writeBuffer());
}
