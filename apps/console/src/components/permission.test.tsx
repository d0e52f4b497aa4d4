import { describe, expect, it, vi } from 'vitest';
import { render, renderHook, screen } from '@testing-library/react';
import type { Role } from '@cellhub/contract/routes';

const roleState = vi.hoisted(() => ({ role: undefined as Role | undefined }));
vi.mock('../lib/user', () => ({ useRole: () => roleState.role }));

import { hasPermission, Permission, ROLES_ERROR, usePermission } from './permission';

describe('hasPermission', () => {
  it('allows everyone when the list is empty', () => {
    expect(hasPermission([], 'user')).toBe(true);
    expect(hasPermission([], undefined)).toBe(true);
  });

  it('allows listed roles only', () => {
    expect(hasPermission(['admin'], 'admin')).toBe(true);
    expect(hasPermission(['admin'], 'user')).toBe(false);
    expect(hasPermission(['admin', 'user'], 'user')).toBe(true);
  });

  it('refuses while the role is unknown', () => {
    expect(hasPermission(['admin'], undefined)).toBe(false);
  });

  it("treats '*' as any signed-in role", () => {
    expect(hasPermission(['*'], 'user')).toBe(true);
  });

  it.each([undefined, 'admin', { admin: true }, null])('throws the seed error for %o', (value) => {
    expect(() => hasPermission(value, 'admin')).toThrow(ROLES_ERROR);
    expect(ROLES_ERROR).toBe(`need roles! Like v-permission="['admin','user']"`);
  });
});

describe('<Permission>', () => {
  it('removes its children when the role is absent', () => {
    roleState.role = 'user';
    render(
      <Permission roles={['admin']}>
        <button type="button">delete</button>
      </Permission>,
    );
    expect(screen.queryByRole('button', { name: 'delete' })).toBeNull();
  });

  it('renders its children for a listed role, and re-checks on update', () => {
    roleState.role = 'admin';
    const { rerender } = render(
      <Permission roles={['admin']}>
        <button type="button">delete</button>
      </Permission>,
    );
    expect(screen.getByRole('button', { name: 'delete' })).toBeTruthy();
    roleState.role = 'user';
    rerender(
      <Permission roles={['admin']}>
        <button type="button">delete</button>
      </Permission>,
    );
    expect(screen.queryByRole('button', { name: 'delete' })).toBeNull();
  });

  it('throws for a non-array roles value', () => {
    roleState.role = 'admin';
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => render(<Permission roles={'admin' as unknown as Role[]}>x</Permission>)).toThrow(
      ROLES_ERROR,
    );
  });
});

describe('usePermission', () => {
  it('answers for the current role', () => {
    roleState.role = 'user';
    expect(renderHook(() => usePermission(['user'])).result.current).toBe(true);
    expect(renderHook(() => usePermission(['admin'])).result.current).toBe(false);
  });
});
