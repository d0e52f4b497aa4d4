import { stringify } from 'csv-stringify/sync';

/** Spreadsheets run cells that start with = + - @ as formulas; text cells get a leading quote (numbers do not). */
export const safeCell = (v: string | number | null): string | number => {
  if (v === null) return '';
  if (typeof v === 'number') return v;
  return /^[=+\-@\t\r]/.test(v) && !/^[+-]?\d[\d.]*$/.test(v) ? `'${v}` : v;
};

/** A CSV file of list rows: UTF-8 with BOM (so spreadsheets read Chinese names), CRLF, every cell made safe. */
export const toCsv = (header: readonly string[], rows: (string | number | null)[][]): string =>
  `\ufeff${stringify([[...header], ...rows.map((r) => r.map(safeCell))], { record_delimiter: '\r\n' })}`;
