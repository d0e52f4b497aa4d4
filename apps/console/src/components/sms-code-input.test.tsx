import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import SmsCodeInput from './sms-code-input';

describe('SmsCodeInput', () => {
  beforeEach(() => {
    localStorage.setItem('arco-locale', 'en-US');
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('waits 60 s after a code was sent before offering another', async () => {
    const onSend = vi.fn(() => Promise.resolve());
    render(<SmsCodeInput placeholder="Code" onSend={onSend} />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send code' })));
    expect(onSend).toHaveBeenCalledTimes(1);
    const wait = screen.getByRole('button', { name: 'Resend in 60s' }) as HTMLButtonElement;
    expect(wait.disabled).toBe(true);
    act(() => {
      vi.advanceTimersByTime(59_000);
    });
    expect(screen.getByRole('button', { name: 'Resend in 1s' })).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect((screen.getByRole('button', { name: 'Send code' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('offers the button again at once when sending failed', async () => {
    const onSend = vi.fn(() => Promise.reject(new Error('phone is empty')));
    render(<SmsCodeInput placeholder="Code" onSend={onSend} />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send code' })));
    expect(onSend).toHaveBeenCalledTimes(1);
    expect((screen.getByRole('button', { name: 'Send code' }) as HTMLButtonElement).disabled).toBe(false);
  });
});
