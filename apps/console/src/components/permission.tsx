/**
 * The permission gate of seed section 6: children are removed when `roles` is non-empty and the user's role is
 * not in it. Like the directive it replaces, a non-array `roles` is a programming error and throws.
 */
import type { ReactNode } from 'react';
import type { RouteRole, Role } from '@cellhub/contract/routes';
import { useRole } from '../lib/user';

export const ROLES_ERROR = `need roles! Like v-permission="['admin','user']"`;

export function hasPermission(roles: unknown, role: Role | undefined): boolean {
  if (!Array.isArray(roles)) throw new Error(ROLES_ERROR);
  if (roles.length === 0) return true;
  const list = roles as RouteRole[];
  return role !== undefined && (list.includes(role) || list.includes('*'));
}

/** Re-evaluated on every render, so a role change (sign-in, role switch) shows or hides at once. */
export function usePermission(roles: readonly RouteRole[]): boolean {
  const role = useRole();
  return hasPermission(roles, role);
}

export function Permission({ roles, children }: { roles: readonly RouteRole[]; children?: ReactNode }) {
  return usePermission(roles) ? <>{children}</> : null;
}
