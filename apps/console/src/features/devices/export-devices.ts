/**
 * CSV and Excel files of device rows, built in the browser. Both libraries load on first use so the list page does
 * not pay for them; the rows come from api.ts `fetchForExport` (at most EXPORT_LIMIT).
 */
import type { ExportTable } from './device-columns';

export type ExportFormat = 'csv' | 'xlsx';

const stamp = (d: Date) => {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}`;
};

export const exportFileName = (format: ExportFormat, now = new Date()) => `devices-${stamp(now)}.${format}`;

/**
 * CSV with a BOM: Excel opens UTF-8 (Chinese names) correctly only with it. Text that looks like a formula is
 * escaped; numbers are written bare (papaparse leaves number cells alone), so -89 stays a number.
 */
export async function toCsv(table: ExportTable): Promise<Blob> {
  const { unparse } = await import('papaparse');
  const text = unparse(
    { fields: table.headers, data: table.rows },
    { newline: '\r\n', escapeFormulae: true },
  );
  return new Blob([`\uFEFF${text}`], { type: 'text/csv;charset=utf-8' });
}

export async function toXlsx(table: ExportTable): Promise<Blob> {
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('devices');
  ws.addRow(table.headers).font = { bold: true };
  // Numbers are numeric cells; text stays text, so long digit strings (IMEI, ICCID) are not rounded.
  for (const r of table.rows) ws.addRow(r);
  ws.columns.forEach((c, i) => {
    const longest = Math.max(
      table.headers[i]?.length ?? 0,
      ...table.rows.slice(0, 200).map((r) => String(r[i] ?? '').length),
    );
    c.width = Math.min(60, Math.max(10, longest + 2));
  });
  ws.views = [{ state: 'frozen', ySplit: 1 }];
  const buf = await wb.xlsx.writeBuffer();
  return new Blob([buf], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
}

export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The import template: the columns the server reads, with one example row. */
export const TEMPLATE_CSV =
  'sn,name,imei,iccid,imsi,phone,address,description\r\nDTU-0001,Pump house,,,,,,\r\n';
