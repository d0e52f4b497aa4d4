import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SecretField } from './secret-field';

describe('SecretField', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));
  afterEach(() => vi.unstubAllGlobals());

  it('masks the secret until revealed, and masks it again', async () => {
    render(<SecretField secret="s3cr3t-value" testId="secret" extra={<span>extra action</span>} />);
    const text = screen.getByTestId('secret');
    expect(text.textContent).toBe('•'.repeat(12));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Show secret' })));
    expect(text.textContent).toBe('s3cr3t-value');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Hide secret' })));
    expect(text.textContent).toBe('•'.repeat(12));
    expect(screen.getByText('extra action')).toBeTruthy();
  });

  it('copies the secret while it is still masked', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    vi.stubGlobal('isSecureContext', true);
    render(<SecretField secret="s3cr3t-value" testId="secret" />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Copy' })));
    expect(writeText).toHaveBeenCalledWith('s3cr3t-value');
    expect(screen.getByTestId('secret').textContent).toBe('•'.repeat(12));
  });
});
