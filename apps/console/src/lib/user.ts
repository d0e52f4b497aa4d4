/**
 * The signed-in user: info from GET /api/user/info (cached under ['user','info']), the role the console shows,
 * and sign-out (seed section 4: clears token, uid, user info and the server menu).
 */
import { useCallback, useSyncExternalStore } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { Message } from '@arco-design/web-react';
import type { UserInfo } from '@cellhub/contract/auth';
import type { Role } from '@cellhub/contract/routes';
import { clearAuth, useSignedIn } from './auth';
import { http } from './request';
import { translate } from './messages';
import { updateSettings } from './settings';

export const USER_INFO_KEY = ['user', 'info'] as const;

export function fetchUserInfo(): Promise<UserInfo> {
  return http.get<UserInfo>('/api/user/info');
}

export function useUserInfo() {
  const signedIn = useSignedIn();
  return useQuery({
    queryKey: USER_INFO_KEY,
    queryFn: fetchUserInfo,
    enabled: signedIn,
    staleTime: 5 * 60_000,
  });
}

// An administrator may preview the console as an ordinary user (the role-switch action of seed section 6).
// It only changes what the console shows; the server still checks the real role on every call.
const VIEW_ROLE_KEY = 'cellhub-view-role';
const roleListeners = new Set<() => void>();

function getViewRole(): Role | null {
  const v = sessionStorage.getItem(VIEW_ROLE_KEY);
  return v === 'user' || v === 'admin' ? v : null;
}

export function setViewRole(role: Role | null): void {
  if (role) sessionStorage.setItem(VIEW_ROLE_KEY, role);
  else sessionStorage.removeItem(VIEW_ROLE_KEY);
  roleListeners.forEach((l) => l());
}

function subscribeViewRole(l: () => void) {
  roleListeners.add(l);
  return () => roleListeners.delete(l);
}

/** The role the console applies: undefined while unknown (user info not loaded). */
export function effectiveRole(
  info: Pick<UserInfo, 'role'> | undefined,
  viewRole: Role | null,
): Role | undefined {
  if (!info) return undefined;
  // Only an administrator can narrow the view; nobody can widen it.
  return info.role === 'admin' && viewRole ? viewRole : info.role;
}

export function useRole(): Role | undefined {
  const { data } = useUserInfo();
  const viewRole = useSyncExternalStore(subscribeViewRole, getViewRole);
  return effectiveRole(data, viewRole);
}

/** For the role-switch action: whether it is offered, and the toggle. */
export function useRoleSwitch(): {
  canSwitch: boolean;
  role: Role | undefined;
  switchRole: () => Role | undefined;
} {
  const { data } = useUserInfo();
  const viewRole = useSyncExternalStore(subscribeViewRole, getViewRole);
  const role = effectiveRole(data, viewRole);
  const canSwitch = data?.role === 'admin';
  const switchRole = useCallback(() => {
    if (!canSwitch) return role;
    const next: Role = role === 'admin' ? 'user' : 'admin';
    setViewRole(next === 'admin' ? null : next);
    return next;
  }, [canSwitch, role]);
  return { canSwitch, role, switchRole };
}

/** Forget everything about the session in this tab (no server call). */
export function clearSession(queryClient: QueryClient): void {
  clearAuth();
  setViewRole(null);
  updateSettings({ serverMenu: undefined });
  queryClient.removeQueries({ queryKey: ['user'] });
  queryClient.clear();
}

export function useLogout(): () => Promise<void> {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useCallback(async () => {
    try {
      // The token stops working on the server at once; a failure here must not keep the user signed in.
      await http.post<null>('/api/auth/logout', undefined, { silent: true });
    } catch {
      // Already signed out or unreachable: clearing locally is all that is left to do.
    }
    clearSession(queryClient);
    Message.success(translate('common.logoutSuccess'));
    void navigate('/login');
  }, [queryClient, navigate]);
}
