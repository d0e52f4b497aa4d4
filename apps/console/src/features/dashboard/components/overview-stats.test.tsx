import { render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import OverviewStats from './overview-stats';

describe('workplace figures', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));

  it('names each operator beside its card count (issue 13: "10 / 2 / 0" said nothing)', () => {
    render(<OverviewStats data={{ simByOperator: { cmcc: 10, cucc: 2, ctcc: 0 }, simTotal: 12 }} />);
    const box = screen.getByTestId('stat-sim-operators');
    expect(box.textContent).not.toContain('10 / 2 / 0');
    for (const [op, name, n] of [
      ['cmcc', 'Mobile', '10'],
      ['cucc', 'Unicom', '2'],
      ['ctcc', 'Telecom', '0'],
    ] as const) {
      const count = screen.getByTestId(`stat-sim-operator-${op}`);
      expect(count.textContent).toBe(n);
      expect(count.previousElementSibling?.textContent).toBe(name);
    }
  });

  it('keeps a label that does not fit whole readable on hover', () => {
    render(<OverviewStats data={{ simTotal: 12 }} />);
    expect(screen.getByTitle('SIM cards').textContent).toBe('SIM cards');
  });
});
