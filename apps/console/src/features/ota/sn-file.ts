/**
 * Reads an uploaded list of serial numbers (the `list` targets of an OTA task) in the browser: a .txt with one sn
 * per line (commas, semicolons and blanks also separate), or a .csv whose `sn` column is used (the first column when
 * there is no header). The server checks every sn again; this only keeps obvious junk out and shows the count.
 */
import { OTA_MAX_LIST_SNS } from '@cellhub/contract/ota';
import { SN_RULE } from '@cellhub/contract/protocol';

export interface SnFile {
  /** Valid serial numbers, duplicates removed, in file order. */
  sns: string[];
  /** Entries that are not serial numbers (at most the first 20, for the message). */
  invalid: string[];
  invalidCount: number;
  /** More than OTA_MAX_LIST_SNS valid entries. */
  tooMany: boolean;
}

/** Header cells naming the serial-number column (exports of our device list, hand-made sheets). */
const SN_HEADERS = new Set([
  'sn',
  'serial',
  'serial number',
  'serial_no',
  'devicekey',
  'device_key',
  '序列号',
  '设备序列号',
]);

const isHeader = (cell: string) => SN_HEADERS.has(cell.trim().toLowerCase());

function collect(entries: string[]): SnFile {
  const seen = new Set<string>();
  const invalid: string[] = [];
  let invalidCount = 0;
  for (const raw of entries) {
    const v = raw.trim();
    if (!v) continue;
    if (!SN_RULE.test(v)) {
      invalidCount++;
      if (invalid.length < 20) invalid.push(v.length > 40 ? `${v.slice(0, 40)}…` : v);
      continue;
    }
    seen.add(v);
  }
  const sns = [...seen];
  return { sns, invalid, invalidCount, tooMany: sns.length > OTA_MAX_LIST_SNS };
}

export async function parseSnFile(name: string, text: string): Promise<SnFile> {
  const body = text.replace(/^\uFEFF/, '');
  if (!/\.csv$/i.test(name)) {
    const tokens = body.split(/[\s,;]+/);
    if (tokens[0] !== undefined && isHeader(tokens[0])) tokens.shift();
    return collect(tokens);
  }
  const { parse } = await import('papaparse');
  const rows = parse<string[]>(body, { skipEmptyLines: 'greedy' }).data;
  let column = 0;
  const first = rows[0] ?? [];
  const header = first.findIndex(isHeader);
  if (header >= 0) {
    column = header;
    rows.shift();
  }
  return collect(rows.map((r) => r[column] ?? ''));
}
