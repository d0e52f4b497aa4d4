/**
 * Where the guard sends a user who opened a route her role may not (seed section 6): the first page she may open,
 * with a notice saying why, so she does not land on the Workplace wondering what happened.
 */
import { useEffect } from 'react';
import { Navigate } from 'react-router';
import { translate } from '../../lib/messages';
import { toast } from '../../lib/toast';

export const ROLE_NOTICE_MS = 5000;

/** One notice per refusal: React may run the effect twice (strict mode), and the guard may render again. */
let lastNotice = { path: '', at: -Infinity };

/** For tests: forget the last notice. */
export function resetRoleNotice(): void {
  lastNotice = { path: '', at: -Infinity };
}

export function roleNotice(denied: { path: string; locale?: string }): string {
  const page = denied.locale ? translate(denied.locale) : denied.path;
  return translate('guard.needsRole', { page });
}

export function RoleRedirect({ to, denied }: { to: string; denied: { path: string; locale?: string } }) {
  const { path, locale } = denied;
  useEffect(() => {
    const now = Date.now();
    if (lastNotice.path === path && now - lastNotice.at < 1000) return;
    lastNotice = { path, at: now };
    toast('warning', roleNotice({ path, locale }), ROLE_NOTICE_MS);
  }, [path, locale]);
  return <Navigate to={to} replace />;
}
