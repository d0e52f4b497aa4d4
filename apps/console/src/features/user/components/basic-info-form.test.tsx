import type * as Arco from '@arco-design/web-react';
import type { UserInfo } from '@cellhub/contract/auth';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { updateProfile } from '../api';
import BasicInfoForm from './basic-info-form';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));
vi.mock('../api', () => ({ updateProfile: vi.fn() }));

const info: UserInfo = {
  uid: 2,
  username: 'alice',
  name: 'alice',
  nickname: 'Alice',
  picture: '',
  job: '',
  jobName: '',
  organization: '',
  organizationName: '',
  location: '',
  locationName: '',
  email: 'alice@example.com',
  introduction: '',
  personalWebsite: '',
  phone: '',
  registrationDate: '2024-01-02 03:04:05',
  accountId: '2',
  certification: 'auditing',
  role: 'user',
  gender: 'female',
  birthday: null,
  country: 'CN',
  area: '',
  address: '',
  profile: '',
  wechat_bound: false,
};

function renderForm() {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <BasicInfoForm info={info} />
    </QueryClientProvider>,
  );
}

describe('basic information', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    localStorage.setItem('arco-locale', 'en-US');
  });

  it('refuses a profile longer than 200 characters', async () => {
    renderForm();
    const profile = screen.getByPlaceholderText('About you, at most 200 characters');
    fireEvent.change(profile, { target: { value: 'x'.repeat(201) } });
    expect(screen.getByText('201/200')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('The profile is at most 200 characters')).toBeTruthy();
    expect(updateProfile).not.toHaveBeenCalled();
  });

  it('saves a profile of exactly 200 characters', async () => {
    vi.mocked(updateProfile).mockResolvedValue(null);
    renderForm();
    fireEvent.change(screen.getByPlaceholderText('About you, at most 200 characters'), {
      target: { value: 'y'.repeat(200) },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(updateProfile).toHaveBeenCalled());
    expect(vi.mocked(updateProfile).mock.calls[0]![0]).toMatchObject({
      nickname: 'Alice',
      email: 'alice@example.com',
      gender: 'female',
      birthday: null,
      country: 'CN',
      profile: 'y'.repeat(200),
    });
  });
});
