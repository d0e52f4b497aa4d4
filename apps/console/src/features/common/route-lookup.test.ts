import { describe, expect, it } from 'vitest';
import { findRoute } from './route-lookup';

describe('findRoute', () => {
  it('finds a leaf with parameters and its group', () => {
    const found = findRoute('/device/detail/pk1/SN01');
    expect(found?.route.name).toBe('DeviceDetail');
    expect(found?.group.name).toBe('device');
  });
  it('finds a route without children', () => {
    expect(findRoute('/share')?.route.name).toBe('Share');
  });
  it('answers undefined for unknown paths', () => {
    expect(findRoute('/nowhere')).toBeUndefined();
  });
});
