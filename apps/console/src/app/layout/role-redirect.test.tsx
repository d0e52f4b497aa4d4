import { render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APP_ROUTES, type RouteDef } from '@cellhub/contract/routes';
import { guard, guardTarget } from '../guard';
import { setLocale } from '../../lib/locale-store';
import { addMessages, loadMessages } from '../../lib/messages';
import zhCNShell from '../../locale/zh-CN-shell';
import { resetRoleNotice, RoleRedirect } from './role-redirect';

const toasts = vi.hoisted(() => [] as { kind: string; content: string }[]);
vi.mock('../../lib/toast', () => ({
  toast: (kind: string, content: string) => toasts.push({ kind, content }),
}));

addMessages('zh-CN', zhCNShell);

const find = (defs: RouteDef[], name: string): RouteDef | undefined => {
  for (const d of defs) {
    if (d.name === name) return d;
    const inner = d.children && find(d.children, name);
    if (inner) return inner;
  }
  return undefined;
};

/** What the shell does for an ordinary user opening the firmware list (admins only, seed section 6). */
function openAsUser(name: string) {
  const def = find(APP_ROUTES, name)!;
  const action = guard({
    to: guardTarget({ name: def.name, meta: def.meta }, { pathname: def.path, search: '' }),
    signedIn: true,
    role: 'user',
    menuFromServer: false,
    serverMenu: undefined,
  });
  if (action.type !== 'redirect') throw new Error(`expected a redirect, got ${action.type}`);
  const router = createMemoryRouter(
    [
      { path: def.path, element: <RoleRedirect to={action.path} denied={action.denied} /> },
      { path: action.path, element: <p>arrived</p> },
    ],
    { initialEntries: [def.path] },
  );
  render(<RouterProvider router={router} />);
  return action;
}

beforeEach(() => {
  toasts.length = 0;
  resetRoleNotice();
});
afterEach(() => setLocale('zh-CN'));

describe('a user sent away from an admin route', () => {
  it('lands on the Workplace and is told the page needs another role (zh-CN)', async () => {
    setLocale('zh-CN');
    const action = openAsUser('FirmwareList');
    expect(action.path).toBe('/dashboard/workplace');
    expect(await screen.findByText('arrived')).toBeTruthy();
    expect(toasts).toEqual([
      { kind: 'warning', content: '「固件列表」需要其他角色才能打开，已为你转到可以访问的页面。' },
    ]);
  });

  it('is told in English too, once', async () => {
    await loadMessages('en-US');
    setLocale('en-US');
    openAsUser('SystemUsers');
    expect(await screen.findByText('arrived')).toBeTruthy();
    expect(toasts).toHaveLength(1);
    expect(toasts[0]!.kind).toBe('warning');
    expect(toasts[0]!.content).toMatch(
      /^".+" needs another role, so you were taken to a page you can open\.$/,
    );
    expect(toasts[0]!.content).not.toContain('menu.');
  });
});
