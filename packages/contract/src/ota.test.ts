import { describe, expect, it } from 'vitest';
import {
  OTA_ALLOWED_ACTIONS,
  OTA_MAX_LIST_SNS,
  OTA_TASK_ACTIONS,
  OTA_TASK_STATUSES,
  otaActionAllowed,
  otaDeviceListQuery,
  otaPolicy,
  otaTaskCreateBody,
} from './ota';
import { otaTaskEvent, wsServerMessage } from './realtime';

const body = { name: 'Roll out 2.0', product_key: 'pk-demo', version_id: 3, targets: { type: 'all' } };

describe('OTA task create body', () => {
  it('fills the rollout policy with its defaults', () => {
    const parsed = otaTaskCreateBody.parse(body);
    expect(parsed.policy).toEqual({
      wave_type: 'percent',
      wave_size: 100,
      wave_pause_s: 0,
      max_concurrent: 1000,
      failure_threshold_type: 'percent',
      failure_threshold: 20,
      retries: 2,
      retry_backoff_s: 60,
      timeout_s: 1800,
      skip_same_version: true,
    });
    expect(parsed).toMatchObject({ plan_time: null, window_end: null, description: '' });
  });

  it('takes a list of serial numbers as text, one per line (or comma), without duplicates', () => {
    const parsed = otaTaskCreateBody.parse({
      ...body,
      targets: { type: 'list', sns: 'A1\r\nB2, C3;A1\n\n' },
    });
    expect(parsed.targets).toEqual({ type: 'list', sns: ['A1', 'B2', 'C3'] });
    const bad = otaTaskCreateBody.safeParse({ ...body, targets: { type: 'pick', sns: ['ok', 'not ok!'] } });
    expect(bad.success).toBe(false);
    const many = Array.from({ length: OTA_MAX_LIST_SNS + 1 }, (_, i) => `S${i}`);
    expect(otaTaskCreateBody.safeParse({ ...body, targets: { type: 'pick', sns: many } }).success).toBe(
      false,
    );
  });

  it('refuses percentages over 100, a window that ends before the plan time and unknown target types', () => {
    const r = otaTaskCreateBody.safeParse({
      ...body,
      plan_time: '2030-01-02T00:00:00Z',
      window_end: '2030-01-01T00:00:00Z',
      policy: { wave_size: 120, failure_threshold: 101 },
    });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.')).sort()).toEqual([
      'policy.failure_threshold',
      'policy.wave_size',
      'window_end',
    ]);
    expect(otaPolicy.safeParse({ wave_type: 'count', wave_size: 500 }).success).toBe(true);
    expect(otaPolicy.safeParse({ failure_threshold: null }).success).toBe(true);
    expect(otaTaskCreateBody.safeParse({ ...body, targets: { type: 'everything' } }).success).toBe(false);
    expect(otaTaskCreateBody.safeParse({ ...body, plan_time: 'tomorrow' }).success).toBe(false);
  });

  it('filters the upgrade log by status 0-6 only', () => {
    expect(otaDeviceListQuery.parse({ status: '4' }).status).toBe(4);
    expect(otaDeviceListQuery.safeParse({ status: '7' }).success).toBe(false);
  });
});

describe('OTA task states', () => {
  it('allows each action in the states of docs/ota.md', () => {
    const table = Object.fromEntries(
      OTA_TASK_STATUSES.map((s) => [s, OTA_TASK_ACTIONS.filter((a) => otaActionAllowed(s, a))]),
    );
    expect(table).toEqual({
      inactive: ['start', 'cancel', 'delete'],
      running: ['pause', 'cancel'],
      done: ['delete'],
      paused: ['start', 'cancel'],
      cancelled: ['delete'],
    });
    expect(Object.keys(OTA_ALLOWED_ACTIONS).sort()).toEqual([...OTA_TASK_STATUSES].sort());
  });
});

describe('ota.task live message', () => {
  it('is a server message of its own', () => {
    const msg = {
      type: 'ota.task',
      id: 7,
      product_key: 'pk-demo',
      status: 'running',
      pause_reason: null,
      device_count: 10,
      success_count: 4,
      fail_count: 1,
      upgrading_count: 3,
      pending_count: 2,
      skipped_count: 0,
      cancelled_count: 0,
      at: '2030-01-01T00:00:00.000Z',
    };
    expect(otaTaskEvent.parse(msg)).toEqual(msg);
    expect(wsServerMessage.parse(msg)).toEqual(msg);
    expect(wsServerMessage.safeParse({ ...msg, status: 'sleeping' }).success).toBe(false);
  });
});
