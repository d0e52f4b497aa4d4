import type { DataTransmitDetail } from '@cellhub/contract/data-transmit';
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { applyTransmitEvent } from './api';
import { parseAddresses } from './pages/data-transmit-edit-page';

const zero = {
  frames_up: 0,
  bytes_up: 0,
  frames_down: 0,
  bytes_down: 0,
  drops: 0,
  last_error: null,
  last_error_at: null,
  latency_ms: null,
  latency_avg_ms: null,
  last_frame_at: null,
};

describe('data transmission console', () => {
  it('reads slave addresses 1-247 separated by commas or spaces, refusing anything else', () => {
    expect(parseAddresses('1, 2,3')).toEqual([1, 2, 3]);
    expect(parseAddresses('5，5 7')).toEqual([5, 7]);
    expect(parseAddresses('')).toEqual([]);
    for (const bad of ['0', '248', 'a', '1.5', '-1', '1000']) expect(parseAddresses(bad)).toBeUndefined();
  });

  it('puts the totals of a live event into the cached rule, leaving other devices alone', () => {
    const qc = new QueryClient();
    const device = (sn: string) => ({
      sn,
      name: '',
      role: 'edge' as const,
      addresses: [],
      product_key: 'pk',
      online: 1 as const,
      allowed: true,
      other_rules: [],
      counters: zero,
    });
    const rule = { id: 7, devices: [device('A'), device('B')] } as unknown as DataTransmitDetail;
    qc.setQueryData(['data-transmit', 'one', 7], rule);
    applyTransmitEvent(qc, {
      type: 'data-transmit.counters',
      id: 7,
      at: '2026-01-01T00:00:00.000Z',
      devices: [{ sn: 'A', ...zero, frames_up: 3, bytes_up: 24, latency_ms: 4.5 }],
    });
    const after = qc.getQueryData<DataTransmitDetail>(['data-transmit', 'one', 7])!;
    expect(after.devices[0]?.counters).toMatchObject({ frames_up: 3, bytes_up: 24, latency_ms: 4.5 });
    expect(after.devices[1]?.counters).toEqual(zero);
  });
});
