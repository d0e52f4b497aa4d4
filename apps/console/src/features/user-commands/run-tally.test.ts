import { describe, expect, it } from 'vitest';
import { normaliseCommandData } from '../../lib/command-value';
import { describeTally, tallyRun } from './run-tally';
import en from './locale/en-US';
import zh from './locale/zh-CN';

const tr =
  (texts: Record<string, string>) =>
  (key: string, vars: Record<string, string | number> = {}) =>
    (texts[key] ?? key).replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k]));

describe('tallyRun', () => {
  it('counts replies as successes, not as "not sent" (issue 13: "0 succeeded, 2 not sent")', () => {
    const tally = tallyRun([
      { status: 'replied', code: 0 },
      { status: 'replied', code: 0 },
    ]);
    expect(tally).toEqual({ total: 2, parts: [{ key: 'ok', n: 2 }], tone: 'success' });
    expect(describeTally(tally, tr(en))).toBe('2 device(s): 2 replied OK');
    expect(describeTally(tally, tr(zh))).toBe('共 2 台：2 台回复成功');
  });

  it('keeps every real state apart: waiting, queued, refused by the device, offline, expired', () => {
    const tally = tallyRun([
      { status: 'sent', code: 0 },
      { status: 'pending', code: 0 },
      { status: 'replied', code: 70003 },
      { status: 'offline', code: 20401 },
      { status: 'expired', code: null },
      { status: 'replied', code: null },
    ]);
    expect(tally.parts).toEqual([
      { key: 'ok', n: 1 },
      { key: 'rejected', n: 1 },
      { key: 'waiting', n: 1 },
      { key: 'queued', n: 1 },
      { key: 'offline', n: 1 },
      { key: 'expired', n: 1 },
    ]);
    expect(tally.tone).toBe('warning');
    expect(describeTally(tally, tr(en))).toBe(
      '6 device(s): 1 replied OK, 1 replied with an error code, 1 waiting for a reply, 1 queued until online, ' +
        '1 offline, not sent, 1 expired in the queue',
    );
  });

  it('reads a run still on its way as information, not success', () => {
    expect(
      tallyRun([
        { status: 'sent', code: 0 },
        { status: 'replied', code: 0 },
      ]).tone,
    ).toBe('info');
  });

  it('has a text for every state in both languages', () => {
    for (const key of [
      'ok',
      'rejected',
      'waiting',
      'queued',
      'timeout',
      'offline',
      'failed',
      'not_found',
      'expired',
      'cancelled',
    ])
      for (const texts of [en, zh] as Record<string, string>[])
        expect(texts[`userCommand.tally.${key}`]).toContain('{n}');
  });
});

describe('normaliseCommandData', () => {
  it('strips blanks between hex bytes and leaves strings and 0x alone', () => {
    expect(normaliseCommandData('hex', 'a1 b2\n C3')).toBe('a1b2C3');
    expect(normaliseCommandData('hex', '0x a1')).toBe('0xa1');
    expect(normaliseCommandData('string', 'AT +CSQ')).toBe('AT +CSQ');
    expect(normaliseCommandData('hex', '   ')).toBe('   ');
    expect(normaliseCommandData('hex', undefined)).toBeUndefined();
  });
});
