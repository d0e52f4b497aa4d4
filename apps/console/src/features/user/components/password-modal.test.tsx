import type * as Arco from '@arco-design/web-react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { getToken, setToken } from '../../../lib/auth';
import { ApiError } from '../../../lib/request';
import { changePassword } from '../api';
import PasswordModal from './password-modal';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));
vi.mock('../api', () => ({ changePassword: vi.fn() }));

function renderModal() {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter initialEntries={['/user/setting']}>
        <Routes>
          <Route path="/user/setting" element={<PasswordModal visible onClose={() => {}} />} />
          <Route path="/login" element={<div>login page</div>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

function fill(old: string, next: string, confirm: string) {
  fireEvent.change(screen.getByPlaceholderText('Your current password'), { target: { value: old } });
  fireEvent.change(screen.getByPlaceholderText('Your new password'), { target: { value: next } });
  fireEvent.change(screen.getByPlaceholderText('The new password again'), { target: { value: confirm } });
  fireEvent.click(screen.getByRole('button', { name: 'OK' }));
}

describe('password change', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    localStorage.setItem('arco-locale', 'en-US');
  });

  it('says "Inconsistent entry of two new passwords" when the new ones differ', async () => {
    renderModal();
    fill('OldPass1', 'NewPass1', 'NewPass2');
    expect(await screen.findByText('Inconsistent entry of two new passwords')).toBeTruthy();
    expect(changePassword).not.toHaveBeenCalled();
  });

  it('requires all three fields', async () => {
    renderModal();
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    expect(await screen.findByText('Please enter the old password')).toBeTruthy();
    expect(screen.getByText('Please enter the new password')).toBeTruthy();
    expect(screen.getByText('Please enter the new password again')).toBeTruthy();
  });

  it('shows a wrong old password next to its field', async () => {
    vi.mocked(changePassword).mockRejectedValue(new ApiError(31004, 'Old password is wrong', 400));
    renderModal();
    fill('Wrong111', 'NewPass1', 'NewPass1');
    expect(await screen.findByText('Old password is wrong')).toBeTruthy();
  });

  it('signs out and goes to /login after a change', async () => {
    setToken('tok', 1);
    vi.mocked(changePassword).mockResolvedValue(null);
    renderModal();
    fill('OldPass1', 'NewPass1', 'NewPass1');
    expect(await screen.findByText('login page')).toBeTruthy();
    await waitFor(() => expect(getToken()).toBeNull());
    expect(changePassword).toHaveBeenCalledWith({
      old_password: 'OldPass1',
      new_password: 'NewPass1',
      confirm_password: 'NewPass1',
    });
  });
});
