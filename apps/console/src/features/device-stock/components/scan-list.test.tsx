import type { StockCheckLine } from '@cellhub/contract/device-stock';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useLocale } from '../../../lib/i18n';
import locale from '../locale';
import { ScanInput, ScanTable, useScanList } from './scan-list';

const check = vi.fn<(sns: string[]) => Promise<StockCheckLine[]>>();

function Harness() {
  const t = useLocale(locale);
  const scan = useScanList(check);
  return (
    <>
      <ScanInput t={t} onAdd={scan.add} />
      <span data-testid="ready">{scan.ready.join(',')}</span>
      <ScanTable t={t} lines={scan.lines} onRemove={scan.remove} />
    </>
  );
}

const scanSn = (sn: string) => {
  const input = screen.getByPlaceholderText('Scan a barcode, or type a serial number and press Enter');
  fireEvent.change(input, { target: { value: sn } });
  fireEvent.keyDown(input, { key: 'Enter', keyCode: 13, code: 'Enter' });
};

const rowOf = (sn: string) =>
  screen
    .getAllByText(sn)
    .map((el) => el.closest('tr'))
    .filter((tr): tr is HTMLTableRowElement => tr !== null);

describe('the fast-out scanner', () => {
  beforeEach(() => {
    localStorage.setItem('arco-locale', 'en-US');
    check.mockReset();
    check.mockImplementation(async (sns) =>
      sns.map((sn) =>
        sn.startsWith('OWNED')
          ? { sn, state: 'owned', code: 11014, product_name: 'DTU' }
          : { sn, state: 'in_stock', code: 0, product_name: 'DTU' },
      ),
    );
  });

  it('adds each entered sn as a line on Enter, checked at once, and clears the input', async () => {
    render(<Harness />);
    scanSn('SN0001');
    expect(within(rowOf('SN0001')[0]!).getByText(/Checking|In stock, ready/)).toBeTruthy();
    expect(await within(rowOf('SN0001')[0]!).findByText('In stock, ready')).toBeTruthy();
    expect(check).toHaveBeenCalledWith(['SN0001']);
    expect(
      (
        screen.getByPlaceholderText(
          'Scan a barcode, or type a serial number and press Enter',
        ) as HTMLInputElement
      ).value,
    ).toBe('');
    scanSn('OWNED-1');
    expect(await within(rowOf('OWNED-1')[0]!).findByText('Owned by someone')).toBeTruthy();
    expect(screen.getByTestId('ready').textContent).toBe('SN0001');
  });

  it('flags a line scanned twice without asking the server again, and an invalid sn at once', async () => {
    render(<Harness />);
    scanSn('SN0002');
    await within(rowOf('SN0002')[0]!).findByText('In stock, ready');
    scanSn('SN0002');
    const rows = rowOf('SN0002');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByText('Scanned twice')).toBeTruthy();
    expect(check).toHaveBeenCalledTimes(1);
    scanSn('bad:sn!');
    expect(within(rowOf('bad:sn!')[0]!).getByText('Not a serial number')).toBeTruthy();
    expect(check).toHaveBeenCalledTimes(1);
    // The sn ships once.
    expect(screen.getByTestId('ready').textContent).toBe('SN0002');
  });
});
