import { describe, expect, it } from 'vitest';
import { toCsv, toXlsx } from './export-devices';

const table = {
  headers: ['sn', '信号 (dBm)', '温度 (°C)', 'ICCID', 'name'],
  rows: [['A', -89, 30.5, '89860012345678901234', '-boom']],
};

describe('export files', () => {
  it('CSV writes numbers bare and still escapes formula-like text', async () => {
    const text = await (await toCsv(table)).text();
    expect(text.split('\r\n')[1]).toBe('A,-89,30.5,89860012345678901234,"\'-boom"');
  });

  it('Excel writes numbers as numeric cells and identifiers as text', async () => {
    const { default: ExcelJS } = await import('exceljs');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(await (await toXlsx(table)).arrayBuffer());
    const row = wb.getWorksheet('devices')!.getRow(2);
    expect(row.getCell(2).value).toBe(-89);
    expect(row.getCell(3).value).toBe(30.5);
    expect(row.getCell(4).value).toBe('89860012345678901234');
  });
});
