import type * as Arco from '@arco-design/web-react';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { getToken } from '../../../lib/auth';
import { ApiError } from '../../../lib/request';
import { loginByPassword } from '../api';
import LoginForm from './login-form';

// Toasts animate on timers that outlive the test environment.
vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

vi.mock('../api', () => ({
  loginByPassword: vi.fn(),
  loginByPhone: vi.fn(),
  sendSmsCode: vi.fn(),
  createWechatTicket: vi.fn(() => new Promise(() => {})),
  pollWechatTicket: vi.fn(),
}));

function Where() {
  const loc = useLocation();
  return <div data-testid="where">{loc.pathname + loc.search}</div>;
}

function renderForm(entry = '/login') {
  return render(
    <MemoryRouter initialEntries={[entry]}>
      <Routes>
        <Route path="/login" element={<LoginForm />} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
}

const login = vi.mocked(loginByPassword);

describe('login form', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    localStorage.setItem('arco-locale', 'en-US');
  });

  it('refuses empty username and password', async () => {
    renderForm();
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Username cannot be empty')).toBeTruthy();
    expect(screen.getByText('Password cannot be empty')).toBeTruthy();
    expect(login).not.toHaveBeenCalled();
  });

  it('requires the user agreement before signing in', async () => {
    renderForm();
    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: 'admin' } });
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'Secret1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Please read and agree to the User Agreement first!')).toBeTruthy();
    expect(login).not.toHaveBeenCalled();
  });

  it('signs in, stores the token and follows the redirect route name', async () => {
    login.mockResolvedValue({ token: 'tok', uid: 7, issuper: false });
    renderForm('/login?redirect=DeviceDetail&productKey=pk1&sn=SN01&tab=config');
    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: ' admin ' } });
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'Secret1' } });
    fireEvent.click(screen.getByText('I have read and agree to the', { exact: false }));
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() =>
      expect(screen.getByTestId('where').textContent).toBe('/device/detail/pk1/SN01?tab=config'),
    );
    expect(login).toHaveBeenCalledWith({ username: 'admin', password: 'Secret1' });
    expect(getToken()).toBe('tok');
  });

  it('shows the server message when sign-in is refused, and "refresh and retry" when the network fails', async () => {
    login.mockRejectedValueOnce(new ApiError(31001, 'Login error: wrong username or password', 400));
    login.mockRejectedValueOnce(new ApiError(0, 'Network error', 0));
    renderForm();
    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: 'admin' } });
    fireEvent.change(screen.getByPlaceholderText('Password'), { target: { value: 'bad' } });
    fireEvent.click(screen.getByText('I have read and agree to the', { exact: false }));
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Login error: wrong username or password')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Login error, refresh and retry')).toBeTruthy();
    expect(getToken()).toBeNull();
  });

  it('phone sign-in needs phone and captcha', async () => {
    renderForm();
    fireEvent.click(screen.getByText('Phone'));
    fireEvent.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Phone number cannot be empty')).toBeTruthy();
    expect(screen.getByText('Verification code cannot be empty')).toBeTruthy();
  });
});
