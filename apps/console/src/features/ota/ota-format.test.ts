import { otaPolicy, type OtaDeviceItem, type OtaTaskItem } from '@cellhub/contract/ota';
import type { OtaTaskEvent } from '@cellhub/contract/realtime';
import { describe, expect, it } from 'vitest';
import { format, type TranslateVars } from '../../lib/messages';
import enUS from './locale/en-US';
import zhCN from './locale/zh-CN';
import {
  applyTaskEvent,
  formatDuration,
  formatSize,
  policyRows,
  progressPercent,
  resultText,
  shortTime,
  targetsText,
  toMB,
} from './ota-format';
import { otaTask } from './task-fixture.test-kit';

const translator = (messages: Record<string, string>) => (key: string, vars?: TranslateVars) =>
  format(messages[key] ?? key, vars);
const en = translator(enUS);
const zh = translator(zhCN);

const task = (over: Partial<OtaTaskItem> = {}): OtaTaskItem =>
  otaTask({
    id: 1,
    size: 65536,
    status: 'running',
    start_time: '2025-01-01T00:00:00.000Z',
    device_count: 10,
    success_count: 2,
    fail_count: 1,
    upgrading_count: 3,
    pending_count: 4,
    ...over,
  });

const event = (id: number, over: Partial<OtaTaskEvent> = {}): OtaTaskEvent => ({
  type: 'ota.task',
  id,
  product_key: 'pk01',
  status: 'running',
  pause_reason: null,
  device_count: 10,
  success_count: 5,
  fail_count: 1,
  upgrading_count: 2,
  pending_count: 1,
  skipped_count: 1,
  cancelled_count: 0,
  at: '2025-01-01T00:01:00.000Z',
  ...over,
});

describe('sizes and volume', () => {
  it('gives the download volume in MB with at most two decimals', () => {
    expect(toMB(0)).toBe('0');
    expect(toMB(65536 * 3)).toBe('0.19');
    expect(toMB(64 * 1024 * 1024)).toBe('64');
    expect(toMB(65536 * 10_000)).toBe('625');
    expect(toMB(1.5 * 1024 * 1024 * 1000)).toBe('1,500');
    expect(toMB(100)).toBe('< 0.01');
  });

  it('gives a file size in its largest unit', () => {
    expect(formatSize(512)).toBe('512 B');
    expect(formatSize(65536)).toBe('64 KB');
    expect(formatSize(1536)).toBe('1.5 KB');
    expect(formatSize(3.25 * 1024 * 1024)).toBe('3.25 MB');
  });

  it('shortens times for table cells, keeping the year only when it is not this one', () => {
    const now = new Date(2026, 5, 1);
    expect(shortTime(new Date(2026, 0, 2, 3, 4, 59).toISOString(), now)).toBe('01-02 03:04');
    expect(shortTime(new Date(2025, 11, 31, 23, 5).toISOString(), now)).toBe('2025-12-31 23:05');
    expect(shortTime(new Date(2026, 0, 2, 3, 4, 59).toISOString(), now, true)).toBe('01-02 03:04:59');
  });

  it('says durations in the two largest units', () => {
    expect(formatDuration(45, en)).toBe('45 s');
    expect(formatDuration(1800, en)).toBe('30 min');
    expect(formatDuration(5400, zh)).toBe('1 小时 30 分钟');
    expect(formatDuration(90_061, en)).toBe('1 d 1 h');
    expect(formatDuration(3601, en)).toBe('1 h');
  });
});

describe('policy and targets in words', () => {
  it('describes the contract defaults', () => {
    const rows = policyRows(otaPolicy.parse({}), en);
    expect(rows.map((r) => r.value)).toEqual([
      '100% of the devices per wave',
      'Next wave as soon as the previous one ends',
      'At most 1000 devices at once',
      'Pause at 20% failed (judged once 10 devices have ended)',
      'Up to 2 more attempts, the first after 1 min, then doubling',
      'Failed if not upgraded within 30 min',
      'Devices on the target version are skipped',
    ]);
  });

  it('describes counted waves, a count threshold, no threshold and no retries', () => {
    const p = otaPolicy.parse({
      wave_type: 'count',
      wave_size: 50,
      wave_pause_s: 600,
      failure_threshold_type: 'count',
      failure_threshold: 5,
      retries: 0,
      skip_same_version: false,
    });
    const values = policyRows(p, zh).map((r) => r.value);
    expect(values).toContain('每批 50 台');
    expect(values).toContain('10 分钟');
    expect(values).toContain('失败 5 台时暂停');
    expect(values).toContain('失败不重试');
    expect(values).toContain('已是目标版本的设备也重新升级');
    expect(policyRows(otaPolicy.parse({ failure_threshold: null }), en)[3]?.value).toBe(
      'Failures never pause the task',
    );
  });

  it('says how targets were chosen', () => {
    expect(targetsText({ type: 'all' }, en)).toBe('All devices of the product');
    expect(targetsText({ type: 'list', sn_count: 120 }, zh)).toBe('上传列表（120 个序列号）');
    expect(targetsText({ type: 'pick', sn_count: 3 }, en)).toBe('Picked by hand (3)');
    expect(targetsText({ type: 'filter', online: 1, fw_version: '1.0.0' }, en)).toBe(
      'Filter: Online, Current firmware 1.0.0',
    );
    expect(targetsText({ type: 'filter' }, en)).toBe('Filter: All');
  });
});

describe('live task messages', () => {
  it('patches the counts of a task on the page and keeps other rows as they are', () => {
    const other = task({ id: 2 });
    const list = { data: [task(), other], total: 2 };
    const { list: next, refetch } = applyTaskEvent(list, event(1));
    expect(refetch).toBe(false);
    expect(next?.data[0]).toMatchObject({
      success_count: 5,
      skipped_count: 1,
      upgrading_count: 2,
      name: 'rollout',
    });
    expect(next?.data[1]).toBe(other);
    expect(progressPercent(next!.data[0]!)).toBe(70);
  });

  it('leaves the page alone for a task it does not show', () => {
    const list = { data: [task()], total: 1 };
    expect(applyTaskEvent(list, event(9))).toEqual({ list, refetch: false });
    expect(applyTaskEvent(undefined, event(1))).toEqual({ list: undefined, refetch: false });
  });

  it('reads the page again when a task changes state or is deleted', () => {
    const list = { data: [task()], total: 1 };
    const paused = applyTaskEvent(list, event(1, { status: 'paused', pause_reason: 'failure_threshold' }));
    expect(paused.refetch).toBe(true);
    expect(paused.list?.data[0]).toMatchObject({ status: 'paused', pause_reason: 'failure_threshold' });
    expect(applyTaskEvent(list, event(1, { deleted: true })).refetch).toBe(true);
  });
});

describe('upgrade log result', () => {
  const row = (result_code: OtaDeviceItem['result_code'], result_params = {}, result = 'server words') => ({
    result,
    result_code,
    result_params,
  });
  it("words the server's codes in both languages, never its English text in zh-CN", () => {
    expect(resultText(zh, row('offline_pending', {}, 'offline: sent when it connects'))).toBe(
      '设备离线，上线后下发',
    );
    expect(resultText(en, row('offline_pending'))).toBe('Offline: sent when it connects');
    expect(resultText(zh, row('device_status', { status: 4 }, 'update succeeded'))).toBe('更新成功');
    expect(resultText(zh, row('already_on_version', { version: '2.1.0' }))).toBe('已是版本 2.1.0，跳过');
    expect(resultText(en, row('timeout', { seconds: 300 }))).toBe('No answer within 300 s (timed out)');
    expect(resultText(zh, row('sim_refused', { reason: 'no_traffic' }))).toBe('SIM 卡无法下载：流量已用完');
    expect(resultText(zh, row('sim_refused', { reason: 'card blocked' }))).toBe(
      'SIM 卡无法下载：card blocked',
    );
    expect(resultText(zh, row('window_ended'))).toBe('升级时间窗已结束，未下发');
    expect(resultText(zh, row('task_cancelled'))).toBe('任务已取消');
    expect(resultText(en, row('reported_version', { version: '3' }))).toBe('Device reported version 3');
  });

  it("shows a device's own words, and old rows without a code, as they are", () => {
    expect(resultText(zh, row('device_message', {}, 'checksum mismatch'))).toBe('checksum mismatch');
    expect(resultText(zh, row('', {}, 'legacy text'))).toBe('legacy text');
  });
});
