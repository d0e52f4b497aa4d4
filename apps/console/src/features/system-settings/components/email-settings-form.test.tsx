import type * as Arco from '@arco-design/web-react';
import { Message } from '@arco-design/web-react';
import type { SystemSettingsView } from '@cellhub/contract/system-settings';
import { fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useSaveChannel } from '../api';
import en from '../locale/en-US';
import EmailSettingsForm from './email-settings-form';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));
vi.mock('../api', () => ({ useSaveChannel: vi.fn() }));
// The test dialog is not opened here.
vi.mock('./send-test-dialog', () => ({ default: () => null }));

const texts = en as Record<string, string>;
const t = (key: string) => texts[key] ?? key;
const mutateAsync = vi.fn();

const view = (email: Partial<SystemSettingsView['email']> = {}): SystemSettingsView =>
  ({
    email: { host: '', port: 465, account: '', nickname: '', ssl: true, password: '', ...email },
    test_targets: { phone: null, email: null, wechat_openid: null },
  }) as SystemSettingsView;

describe('SMTP settings form', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    vi.mocked(useSaveChannel).mockReturnValue({ mutateAsync, isPending: false } as never);
  });

  it('does not "save" an empty form: host, account and a first password are asked for', async () => {
    render(<EmailSettingsForm view={view()} t={t} />);
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Please enter the SMTP host')).toBeTruthy();
    expect(screen.getByText('Please enter the sender account')).toBeTruthy();
    expect(screen.getByText('Please enter the password: none is stored yet')).toBeTruthy();
    expect(mutateAsync).not.toHaveBeenCalled();
    expect(Message.success).not.toHaveBeenCalled();
  });

  it('saves a complete form, and keeps a stored password when its field is left empty', async () => {
    mutateAsync.mockResolvedValue(
      view({ host: 'smtp.example.com', account: 'a@example.com', password: '******' }),
    );
    render(<EmailSettingsForm view={view({ password: '******' })} t={t} />);
    fireEvent.change(screen.getByPlaceholderText('smtp.example.com'), {
      target: { value: 'smtp.example.com' },
    });
    fireEvent.change(screen.getByPlaceholderText('name@example.com'), { target: { value: 'a@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() =>
      expect(mutateAsync).toHaveBeenCalledWith(
        expect.objectContaining({ host: 'smtp.example.com', account: 'a@example.com', password: '' }),
      ),
    );
  });
});
