import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { QrBox } from './qr-box';

describe('QrBox', () => {
  it('shows its placeholder until there is a value, then the code', async () => {
    const { rerender } = render(<QrBox tip="Scan me">waiting</QrBox>);
    expect(screen.getByText('waiting')).toBeTruthy();
    expect(screen.getByText('Scan me')).toBeTruthy();
    rerender(<QrBox value="https://example.test/t/1" tip="Scan me" />);
    const code = await screen.findByRole('img', { name: 'QR code' });
    expect(code.querySelector('path')?.getAttribute('d')).toMatch(/^M\d+ \d+h1v1h-1z/);
    expect(screen.queryByText('waiting')).toBeNull();
  });

  it('lays an alert over the code when it can no longer be scanned', () => {
    render(<QrBox value="x" overlay="Expired" />);
    expect(screen.getByRole('alert').textContent).toBe('Expired');
  });
});
