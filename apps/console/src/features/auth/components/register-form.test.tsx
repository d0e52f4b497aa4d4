import type * as Arco from '@arco-design/web-react';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { register } from '../api';
import RegisterForm from './register-form';

// Toasts animate on timers that outlive the test environment.
vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

vi.mock('../api', () => ({ register: vi.fn(), sendSmsCode: vi.fn() }));

describe('register form', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    localStorage.setItem('arco-locale', 'en-US');
  });

  const fill = (password: string, password2: string) => {
    fireEvent.change(screen.getByPlaceholderText('Username (3-32 letters, digits, _ - .)'), {
      target: { value: 'alice' },
    });
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: password } });
    fireEvent.change(screen.getByPlaceholderText('Confirm password'), { target: { value: password2 } });
    fireEvent.click(screen.getByText('I have read and agree to the', { exact: false }));
    fireEvent.click(screen.getByRole('button', { name: 'Register' }));
  };

  it('refuses two different passwords', async () => {
    render(<RegisterForm />, { wrapper: MemoryRouter });
    fill('Secret12', 'Secret13');
    expect(await screen.findByText('The two passwords do not match')).toBeTruthy();
    expect(register).not.toHaveBeenCalled();
  });

  it('refuses a password without upper case letters', async () => {
    render(<RegisterForm />, { wrapper: MemoryRouter });
    fill('secret12', 'secret12');
    const password = screen.getByPlaceholderText('Password');
    await vi.waitFor(() => expect(password.closest('.arco-form-item-status-error')).not.toBeNull());
    expect(
      screen.getByPlaceholderText('Confirm password').closest('.arco-form-item-status-error'),
    ).toBeNull();
    expect(register).not.toHaveBeenCalled();
  });

  it('shows the password rule once, also when the password breaks it', async () => {
    render(<RegisterForm />, { wrapper: MemoryRouter });
    const rule = 'At least 6 characters, no spaces, with digits, upper and lower case letters';
    expect(screen.getAllByText(rule)).toHaveLength(1);
    fill('secret12', 'secret12');
    expect(await screen.findByText('The password does not meet the rule below')).toBeTruthy();
    expect(screen.getAllByText(rule)).toHaveLength(1);
  });

  it('registers with matching passwords', async () => {
    vi.mocked(register).mockResolvedValue({ uid: 3 });
    render(<RegisterForm />, { wrapper: MemoryRouter });
    fill('Secret12', 'Secret12');
    await vi.waitFor(() =>
      expect(register).toHaveBeenCalledWith({
        username: 'alice',
        password: 'Secret12',
        password2: 'Secret12',
      }),
    );
  });
});
