import type * as Arco from '@arco-design/web-react';
import type { MapTileSettingsView } from '@cellhub/contract/map-tiles';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useLocale } from '../../../lib/i18n';
import { ApiError, http } from '../../../lib/request';
import locale from '../locale';
import MapSettingsForm from './map-settings-form';

vi.mock('@arco-design/web-react', async (importOriginal) => ({
  ...(await importOriginal<typeof Arco>()),
  Message: { success: vi.fn(), info: vi.fn(), warning: vi.fn(), error: vi.fn() },
}));

function Harness({ view }: { view: MapTileSettingsView }) {
  const t = useLocale(locale);
  return <MapSettingsForm view={view} t={t} />;
}

const renderForm = (view: MapTileSettingsView) =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <Harness view={view} />
    </QueryClientProvider>,
  );

describe('map settings form', () => {
  beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));
  afterEach(() => vi.restoreAllMocks());

  it('asks for the URL only for a custom source and shows the server refusal in words', async () => {
    const put = vi
      .spyOn(http, 'put')
      .mockRejectedValue(
        new ApiError(10113, 'Form error', 400, [{ field: 'custom_url', message: 'tile_url_scheme' }]),
      );
    renderForm({ provider: 'osm', custom_url: '', tianditu_key: '', source: 'env' });
    expect(screen.queryByPlaceholderText(/tiles\.example\.com/)).toBeNull();
    await act(async () => fireEvent.click(screen.getByLabelText(/Custom URL template/)));
    const input = await screen.findByPlaceholderText(/tiles\.example\.com/);
    await act(async () => fireEvent.change(input, { target: { value: 'ftp://t.example.com/{z}/{x}/{y}' } }));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Save' })));
    await waitFor(() => expect(put).toHaveBeenCalled());
    expect(put.mock.calls[0]![1]).toMatchObject({
      provider: 'custom',
      custom_url: 'ftp://t.example.com/{z}/{x}/{y}',
    });
    expect(await screen.findByText('Only http:// or https:// addresses')).toBeTruthy();
  });

  it('offers the Tianditu key field, saying when one is stored, and never fills it in', async () => {
    renderForm({ provider: 'tianditu', custom_url: '', tianditu_key: '******', source: 'setting' });
    const key = screen.getByLabelText(/Tianditu key/) as HTMLInputElement;
    expect(key.value).toBe('');
    expect(key.placeholder).not.toBe('');
    expect(screen.getByText('In use: the setting saved here')).toBeTruthy();
  });
});
