import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/request';
import { deleteRefusal } from './delete-refusal';

describe('deleteRefusal', () => {
  it('reads the device count of a 10112 answer', () => {
    expect(deleteRefusal(new ApiError(10112, 'x', 400, { device_count: 3 }))).toEqual({ device_count: 3 });
  });
  it('ignores other failures', () => {
    expect(deleteRefusal(new ApiError(10107, 'x', 400))).toBeUndefined();
    expect(deleteRefusal(new ApiError(10112, 'x', 400))).toBeUndefined();
    expect(deleteRefusal(new Error('x'))).toBeUndefined();
  });
});
