import { OTA_MAX_LIST_SNS } from '@cellhub/contract/ota';
import { describe, expect, it } from 'vitest';
import { parseSnFile } from './sn-file';

describe('serial-number files', () => {
  it('reads a text file: one per line, other separators too, header and duplicates dropped', async () => {
    const r = await parseSnFile('devices.txt', 'SN\r\nDTU-001\n\nDTU-002, DTU-003;DTU-001\n  DTU-004  \n');
    expect(r.sns).toEqual(['DTU-001', 'DTU-002', 'DTU-003', 'DTU-004']);
    expect(r.invalidCount).toBe(0);
    expect(r.tooMany).toBe(false);
  });

  it('reports what is not a serial number, with a short sample', async () => {
    const r = await parseSnFile('x.txt', 'GOOD-1\nbad/sn\n-leading\nGOOD-2\n名字');
    expect(r.sns).toEqual(['GOOD-1', 'GOOD-2']);
    expect(r.invalidCount).toBe(3);
    expect(r.invalid).toEqual(['bad/sn', '-leading', '名字']);
  });

  it('takes the sn column of a CSV with a header (quoted cells, BOM, a device list export)', async () => {
    const csv =
      '\uFEFF名称,设备序列号,在线\r\n"Pump, east",P-001,在线\r\n"Pump ""west""",P-002,离线\r\n,,\r\n';
    const r = await parseSnFile('export.CSV', csv);
    expect(r.sns).toEqual(['P-001', 'P-002']);
    expect(r.invalidCount).toBe(0);
  });

  it('takes the first column of a CSV without a header', async () => {
    const r = await parseSnFile('list.csv', 'A-1,first\nA-2,second\nA-1,again\n');
    expect(r.sns).toEqual(['A-1', 'A-2']);
  });

  it('says when a list is longer than a task may take', async () => {
    const text = Array.from({ length: OTA_MAX_LIST_SNS + 1 }, (_, i) => `D${i}`).join('\n');
    const r = await parseSnFile('big.txt', text);
    expect(r.sns).toHaveLength(OTA_MAX_LIST_SNS + 1);
    expect(r.tooMany).toBe(true);
  });
});
