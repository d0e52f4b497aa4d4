import { describe, expect, it } from 'vitest';
import { format } from '../../lib/messages';
import { badSnLines, lineReasonText } from './line-reason';
import locale from './locale';

const tr = (lang: 'zh-CN' | 'en-US') => (key: string, vars?: Record<string, string | number>) =>
  format((locale[lang] as Record<string, string>)[key] ?? key, vars);
const zh = tr('zh-CN');
const en = tr('en-US');

describe('lineReasonText', () => {
  it("words the server's field and rule in the user's language, with the line", () => {
    const line = { row: 3, code: 10113, field: 'sn', rule: 'sn_rule' as const, message: 'sn: ...' };
    expect(lineReasonText(line, en, 'en-US')).toBe(
      'Line 3: SN must be 1-64 letters, digits or _ . : -, starting with a letter or digit',
    );
    expect(lineReasonText(line, zh, 'zh-CN')).toMatch(/^第 3 行：序列号只能由字母、数字/);
    const long = { row: 4, code: 10113, field: 'name', rule: 'too_long' as const, params: { max: 64 } };
    expect(lineReasonText(long, en, 'en-US')).toBe('Line 4: Name must be at most 64 characters');
    const dup = { row: 8, code: 10113, field: 'sn', rule: 'duplicate' as const, params: { row: 2 } };
    expect(lineReasonText(dup, zh, 'zh-CN')).toBe('第 8 行：与第 2 行的序列号重复');
    expect(lineReasonText({ ...line, field: 'imei', rule: 'imei_rule' }, en, 'en-US')).toBe(
      'Line 3: IMEI must be 14-17 digits',
    );
  });

  it("falls back to the code table in the user's language, never a bare code", () => {
    expect(lineReasonText({ code: 20402 }, zh, 'zh-CN')).not.toMatch(/^\d+$/);
    expect(lineReasonText({ row: 5, code: 20403 }, en, 'en-US')).toMatch(/^Line 5: \D/);
    expect(lineReasonText({ code: 0 }, en, 'en-US')).toBe('');
  });
});

describe('badSnLines', () => {
  it('names the lines the server would refuse, counting blank lines', () => {
    expect(badSnLines('A-1\n\nbad sn\nB-2\r\n-x\n')).toEqual([
      { row: 3, sn: 'bad sn' },
      { row: 5, sn: '-x' },
    ]);
    expect(badSnLines('A-1\nB.2:3')).toEqual([]);
  });
});
