import type * as Arco from '@arco-design/web-react';
import { PASSWORD_RULE, type UserListItem } from '@cellhub/contract/auth';
import { fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/request';
import { useCreateUser, useUpdateUser } from '../api';
import UserFormModal from './user-form-modal';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

const create = vi.fn();
const update = vi.fn();
vi.mock('../api', () => ({
  useCreateUser: vi.fn(),
  useUpdateUser: vi.fn(),
}));

const bob: UserListItem = {
  uid: 7,
  username: 'bob',
  nickname: 'Bob',
  phone: '',
  email: '',
  role: 'user',
  disabled: false,
  createdat: '2026-01-01T00:00:00.000Z',
  last_login_at: null,
};

describe('user form modal', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    localStorage.setItem('arco-locale', 'en-US');
    vi.mocked(useCreateUser).mockReturnValue({ mutateAsync: create, isPending: false } as never);
    vi.mocked(useUpdateUser).mockReturnValue({ mutateAsync: update, isPending: false } as never);
  });

  it('opens an account with a generated password and shows that password once', async () => {
    create.mockResolvedValue({ uid: 9 });
    const onClose = vi.fn();
    render(<UserFormModal visible onClose={onClose} />);
    fireEvent.change(screen.getByTestId('user-username'), { target: { value: 'carol' } });
    fireEvent.click(screen.getByText('Admin'));
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await vi.waitFor(() => expect(create).toHaveBeenCalledTimes(1));
    const body = create.mock.calls[0]![0] as { username: string; password: string; role: string };
    expect(body).toMatchObject({ username: 'carol', role: 'admin' });
    expect(body.password).toMatch(PASSWORD_RULE);
    expect((await screen.findByTestId('issued-password')).textContent).toBe(body.password);
    expect(screen.getByText(/shown only once/)).toBeTruthy();
    expect(onClose).toHaveBeenCalled();
  });

  it('puts a taken username under its field, not in a toast', async () => {
    create.mockRejectedValue(new ApiError(31003, 'Username already exists', 400));
    render(<UserFormModal visible onClose={vi.fn()} />);
    fireEvent.change(screen.getByTestId('user-username'), { target: { value: 'admin' } });
    fireEvent.click(screen.getByText('Set one'));
    fireEvent.change(await screen.findByTestId('user-password'), { target: { value: 'Given123' } });
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await vi.waitFor(() =>
      expect(create).toHaveBeenCalledWith(expect.objectContaining({ password: 'Given123' })),
    );
    expect(await screen.findByText('Username already exists')).toBeTruthy();
    expect(screen.queryByTestId('issued-password')).toBeNull();
  });

  it('edits role and contact fields of an existing account, not its name', async () => {
    update.mockResolvedValue({ ...bob, role: 'admin' });
    render(<UserFormModal visible user={bob} onClose={vi.fn()} />);
    expect((screen.getByTestId('user-username') as HTMLInputElement).disabled).toBe(true);
    expect(screen.queryByText('Initial password')).toBeNull();
    fireEvent.change(screen.getByTestId('user-phone'), { target: { value: '12' } });
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    expect(await screen.findByText('This is not a valid phone number')).toBeTruthy();
    expect(update).not.toHaveBeenCalled();
    fireEvent.change(screen.getByTestId('user-phone'), { target: { value: '13900001234' } });
    fireEvent.click(screen.getByText('Admin'));
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await vi.waitFor(() =>
      expect(update).toHaveBeenCalledWith({
        uid: 7,
        body: { nickname: 'Bob', email: '', phone: '13900001234', role: 'admin' },
      }),
    );
  });
});
