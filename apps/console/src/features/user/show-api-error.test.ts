import { beforeEach, describe, expect, it, vi } from 'vitest';

const message = vi.hoisted(() => ({ error: vi.fn() }));
vi.mock('@arco-design/web-react', () => ({ Message: message }));

import { ApiError } from '../../lib/request';
import { showApiError } from './show-api-error';

const FIELDS = { 20121: 'captcha', 20125: 'phone' } as const;

describe('showApiError', () => {
  const form = { setFields: vi.fn() };
  beforeEach(() => {
    form.setFields.mockReset();
    message.error.mockReset();
  });

  it('puts a known code under its field', () => {
    showApiError(form, new ApiError(20121, 'Wrong code', 400), FIELDS);
    expect(form.setFields).toHaveBeenCalledWith({ captcha: { error: { message: 'Wrong code' } } });
    expect(message.error).not.toHaveBeenCalled();
  });

  it('toasts a code that belongs to no field', () => {
    showApiError(form, new ApiError(10113, 'Invalid', 400), FIELDS);
    expect(form.setFields).not.toHaveBeenCalled();
    expect(message.error).toHaveBeenCalledWith('Invalid');
  });

  it('stays quiet on 403 (sign-in expired) and on errors that are not API errors', () => {
    showApiError(form, new ApiError(10102, 'Expired', 403), FIELDS);
    showApiError(form, new Error('boom'), FIELDS);
    expect(form.setFields).not.toHaveBeenCalled();
    expect(message.error).not.toHaveBeenCalled();
  });
});
