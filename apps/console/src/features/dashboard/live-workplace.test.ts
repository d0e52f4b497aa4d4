import type { DashboardWorkplace } from '@cellhub/contract/dashboard';
import type { OtaTaskItem } from '@cellhub/contract/ota';
import type { OtaTaskEvent } from '@cellhub/contract/realtime';
import { describe, expect, it } from 'vitest';
import { applyOtaEvent } from './live-workplace';

const task = { id: 7, status: 'running', success_count: 0, device_count: 4 } as unknown as OtaTaskItem;
const view = {
  alerts: { total: 0, items: [] },
  ota: { total: 1, items: [task] },
  sim_expiring: { total: 0, items: [] },
  sim_exhausted: { total: 0, items: [] },
  offline_today: { total: 0, items: [] },
  since: '2026-01-01T00:00:00.000Z',
} as DashboardWorkplace;
const event = (over: Partial<OtaTaskEvent>): OtaTaskEvent =>
  ({
    type: 'ota.task',
    id: 7,
    product_key: 'pk',
    status: 'running',
    pause_reason: null,
    at: '2026-01-01T00:00:01.000Z',
    device_count: 4,
    success_count: 3,
    fail_count: 0,
    upgrading_count: 1,
    pending_count: 0,
    skipped_count: 0,
    cancelled_count: 0,
    ...over,
  }) as OtaTaskEvent;

describe('the Workplace OTA block, live', () => {
  it('patches the counts of a listed running task', () => {
    const next = applyOtaEvent(view, event({}));
    expect(next.refetch).toBe(false);
    expect(next.data!.ota.items[0]).toMatchObject({ id: 7, success_count: 3, upgrading_count: 1 });
    expect(next.data!.ota.items[0]).not.toHaveProperty('type');
  });

  it('reads the list again when a task starts, ends or is deleted', () => {
    expect(applyOtaEvent(view, event({ status: 'done' })).refetch).toBe(true);
    expect(applyOtaEvent(view, event({ deleted: true })).refetch).toBe(true);
    expect(applyOtaEvent(view, event({ id: 8 })).refetch).toBe(true);
    expect(applyOtaEvent(view, event({ id: 8, status: 'paused' })).refetch).toBe(false);
    expect(applyOtaEvent(undefined, event({})).data).toBeUndefined();
  });
});
