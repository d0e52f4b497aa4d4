import { describe, expect, it } from 'vitest';
import { format } from '../../lib/messages';
import { conditionText, durationText, triggerPropertyName, valueText } from './alert-format';
import zhCN from './locale/zh-CN';
import enUS from './locale/en-US';

const zh = (key: string, vars?: Record<string, string | number>) =>
  format((zhCN as Record<string, string>)[key] ?? key, vars);
const en = (key: string, vars?: Record<string, string | number>) =>
  format((enUS as Record<string, string>)[key] ?? key, vars);

describe('conditionText', () => {
  it('writes each of the seven types', () => {
    const c = { a: 10, b: 20, property: '温度' };
    expect(conditionText(zh, { ...c, type: 1 })).toBe('设备上线');
    expect(conditionText(zh, { ...c, type: 2 })).toBe('设备离线');
    expect(conditionText(zh, { ...c, type: 3 })).toBe('温度 < 10');
    expect(conditionText(zh, { ...c, type: 4 })).toBe('温度 > 20');
    expect(conditionText(zh, { ...c, type: 5 })).toBe('10 ≤ 温度 ≤ 20');
    expect(conditionText(zh, { ...c, type: 6 })).toBe('温度 < 10 或 温度 > 20');
    expect(conditionText(en, { ...c, type: 6, property: 'temp' })).toBe('temp < 10 or temp > 20');
    expect(conditionText(zh, { ...c, type: 7, a: -0.5 })).toBe('温度 = -0.5');
  });
});

describe('valueText and durationText', () => {
  it('shows online values as words and durations in the largest whole unit', () => {
    expect(valueText(zh, 2, 0)).toBe('离线');
    expect(valueText(en, 1, 1)).toBe('online');
    expect(valueText(zh, 4, 31.5)).toBe('31.5');
    expect(valueText(zh, 4, null)).toBe('');
    expect(durationText(zh, 300)).toBe('5 分钟');
    expect(durationText(en, 7200)).toBe('2 h');
    expect(durationText(en, 90)).toBe('90 s');
  });
});

describe('locales', () => {
  it('have the same keys', () => {
    expect(Object.keys(enUS).sort()).toEqual(Object.keys(zhCN).sort());
  });
});

describe('triggerPropertyName', () => {
  it('uses the English name in en-US and the Chinese one otherwise or when there is no English one', () => {
    const row = { property_name: '温度', property_name_us: 'Temperature' };
    expect(triggerPropertyName(row, 'en-US')).toBe('Temperature');
    expect(triggerPropertyName(row, 'zh-CN')).toBe('温度');
    expect(triggerPropertyName({ ...row, property_name_us: '' }, 'en-US')).toBe('温度');
  });
});
