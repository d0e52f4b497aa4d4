import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../lib/request';
import { editPageState, showFieldErrors } from './form-states';

const back = { to: '/list', label: 'Back' };

describe('editPageState', () => {
  it('lets a create page or a loaded record show its form', () => {
    expect(editPageState({ editing: false, loading: true, failed: true, notFound: 'gone', back })).toBeNull();
    expect(
      editPageState({ editing: true, loading: false, failed: false, notFound: 'gone', back }),
    ).toBeNull();
  });

  it('says the record is missing, with the way back, and spins while it loads', () => {
    const missing = editPageState({ editing: true, loading: false, failed: true, notFound: 'gone', back });
    render(<MemoryRouter>{missing}</MemoryRouter>);
    expect(screen.getByText('gone')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Back' })).toBeTruthy();
    const loading = editPageState({ editing: true, loading: true, failed: false, notFound: 'gone', back });
    const { container } = render(<MemoryRouter>{loading}</MemoryRouter>);
    expect(container.querySelector('.arco-spin')).not.toBeNull();
  });
});

describe('showFieldErrors', () => {
  it('puts 10113 details under their (mapped) fields', () => {
    const setFields = vi.fn();
    const e = new ApiError(10113, 'invalid', 400, [
      { field: 'price_fen', message: 'too big' },
      { field: 'name', message: 'required' },
    ]);
    const shown = showFieldErrors({ setFields }, e, {
      field: (f) => (f === 'price_fen' ? 'price' : f),
      message: (m) => (m === 'required' ? 'Please fill in' : m),
    });
    expect(shown).toBe(true);
    expect(setFields.mock.calls).toEqual([
      [{ price: { error: { message: 'too big' } } }],
      [{ name: { error: { message: 'Please fill in' } } }],
    ]);
  });

  it('leaves other refusals to the caller', () => {
    const setFields = vi.fn();
    expect(showFieldErrors({ setFields }, new ApiError(60007, 'taken', 400))).toBe(false);
    expect(showFieldErrors({ setFields }, new ApiError(10113, 'invalid', 400, []))).toBe(false);
    expect(showFieldErrors({ setFields }, new Error('network'))).toBe(false);
    expect(setFields).not.toHaveBeenCalled();
  });
});
