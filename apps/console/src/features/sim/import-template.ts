/**
 * The batch files' templates, built in the browser: the columns the server reads (SIM_IMPORT_COLUMNS) with one
 * example row. In the Excel file every cell is text, so a 20-digit ICCID is never turned into a rounded number.
 */
import { SIM_IMPORT_COLUMNS } from '@cellhub/contract/sim';

export type TemplateKind = 'cards' | 'usage';

export const USAGE_IMPORT_COLUMNS = ['iccid', 'date', 'used_mb'] as const;

export function templateRows(
  kind: TemplateKind,
  example: { provider: string; packageCode: string },
): string[][] {
  if (kind === 'usage') {
    return [
      [...USAGE_IMPORT_COLUMNS],
      ['89860412345678901234', new Date().toISOString().slice(0, 10), '12.5'],
    ];
  }
  return [
    [...SIM_IMPORT_COLUMNS],
    [
      '89860412345678901234',
      '1064812345678',
      '460040123456789',
      'china_mobile',
      example.provider,
      example.packageCode,
    ],
  ];
}

const cell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** UTF-8 with a BOM: Excel opens Chinese provider names correctly only with it. */
export function templateCsv(rows: string[][]): Blob {
  const text = rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
  return new Blob([`\uFEFF${text}`], { type: 'text/csv;charset=utf-8' });
}

export async function templateXlsx(rows: string[][]): Promise<Blob> {
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('sim');
  rows.forEach((r, i) => {
    const row = ws.addRow(r);
    if (i === 0) row.font = { bold: true };
  });
  ws.columns.forEach((c) => {
    c.numFmt = '@';
    c.width = 24;
  });
  const buf = await wb.xlsx.writeBuffer();
  return new Blob([buf], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
}
