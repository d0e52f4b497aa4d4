import type { ApplicationItem, ApplicationVersion } from '@cellhub/contract/applications';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '@cellhub/contract/routes';
import type * as UserModule from '../../../lib/user';
import { useRole } from '../../../lib/user';
import { ApplicationForm } from '../components/application-form';
import ApplicationListPage from './application-list-page';
import ApplicationVersionPage from './application-version-page';

vi.mock('../../../lib/user', async (importOriginal) => ({
  ...(await importOriginal<typeof UserModule>()),
  useRole: vi.fn(),
}));

const version = (over: Partial<ApplicationVersion>): ApplicationVersion => ({
  id: 1,
  application_id: 7,
  version: '1.0.0',
  notes_zh: '首个版本',
  notes_en: 'First release',
  filename: 'tool.apk',
  size: 2048,
  sha256: 'ab'.repeat(32),
  content_type: 'application/vnd.android.package-archive',
  latest: false,
  force_update: false,
  createdat: '2026-01-01T00:00:00.000Z',
  ...over,
});

const latest = version({
  id: 2,
  version: '1.1.0',
  latest: true,
  force_update: true,
  notes_en: 'Faster sync',
});
const app: ApplicationItem = {
  id: 7,
  name: 'Field tool',
  platform: 'android',
  description: 'Configure DTUs on site',
  icon: '',
  created_by: 1,
  version_count: 2,
  latest,
  createdat: '2026-01-01T00:00:00.000Z',
  updatedat: '2026-01-02T00:00:00.000Z',
};

function open(role: Role, path: string) {
  vi.mocked(useRole).mockReturnValue(role);
  vi.stubGlobal(
    'fetch',
    vi.fn((input: RequestInfo | URL) => {
      const url = input instanceof Request ? input.url : String(input);
      const body = /\/api\/applications\/7$/.test(url)
        ? { status: true, data: app }
        : /\/api\/applications\/7\/versions/.test(url)
          ? { status: true, data: [latest, version({})], total: 2 }
          : /\/api\/applications(\?|$)/.test(url)
            ? { status: true, data: [app], total: 1 }
            : { status: true, data: null };
      return Promise.resolve(
        new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }),
      );
    }),
  );
  const router = createMemoryRouter(
    [
      { path: '/application/list', element: <ApplicationListPage /> },
      { path: '/application/version/:id', element: <ApplicationVersionPage /> },
    ],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

beforeEach(() => localStorage.setItem('arco-locale', 'en-US'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('application version page', () => {
  it('lets a user read and download, with notes in the active language, and nothing to publish', async () => {
    open('user', '/application/version/7');
    expect(await screen.findByText('Faster sync')).toBeTruthy();
    expect(screen.getByText('First release')).toBeTruthy();
    expect(screen.getAllByText('Force update').length).toBeGreaterThan(0);
    // The header's "Download latest" and one per version.
    expect(screen.getAllByRole('button', { name: /Download/ })).toHaveLength(3);
    expect(screen.queryByRole('button', { name: /Upload version/ })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Set latest' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Delete/ })).toBeNull();
    // The SHA-256 is shortened in the cell.
    expect(screen.getAllByText(`${'ab'.repeat(6)}…${'ab'.repeat(3)}`).length).toBe(2);
  });

  it('gives an admin upload, set-latest, edit and delete', async () => {
    open('admin', '/application/version/7');
    expect(await screen.findByText('Faster sync')).toBeTruthy();
    expect(screen.getByRole('button', { name: /Upload version/ })).toBeTruthy();
    // Only the version that is not the latest offers "Set latest".
    expect(screen.getAllByRole('button', { name: 'Set latest' })).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: /Upload version/ }));
    expect(await screen.findByText('Release notes (English)')).toBeTruthy();
  });
});

describe('application list', () => {
  it('shows the latest version and a download to a user, without create, edit or delete', async () => {
    open('user', '/application/list');
    expect(await screen.findByText('Field tool')).toBeTruthy();
    expect(screen.getByText('1.1.0')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Download latest' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Create application/ })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('gives an admin create, edit and delete', async () => {
    open('admin', '/application/list');
    expect(await screen.findByText('Field tool')).toBeTruthy();
    expect(screen.getByRole('button', { name: /Create application/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Edit' })).toBeTruthy();
  });
});

describe('application form', () => {
  it('refuses an SVG icon before anything is sent', async () => {
    vi.mocked(useRole).mockReturnValue('admin');
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    const { container } = render(
      <QueryClientProvider client={new QueryClient()}>
        <ApplicationForm onSaved={vi.fn()} onCancel={vi.fn()} />
      </QueryClientProvider>,
    );
    const input = container.querySelector('input[type=file]')!;
    const svg = new File(['<svg onload="alert(1)"/>'], 'x.svg', { type: 'image/svg+xml' });
    fireEvent.change(input, { target: { files: [svg] } });
    expect(await screen.findByText('The icon must be a PNG, JPEG or WebP image')).toBeTruthy();
    expect(container.querySelector('img')).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
  });
});
