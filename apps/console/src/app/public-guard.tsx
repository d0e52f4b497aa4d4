/**
 * The first half of the guard, in the main chunk: it knows only whether a token exists, which is enough for
 * public routes and for sending signed-out visitors to login. Everything that needs the role runs in the
 * protected shell (layout/protected-shell.tsx), with the same pure function.
 */
import { Navigate, Outlet, useLocation } from 'react-router';
import { useSignedIn } from '../lib/auth';
import { useCurrentRoute } from './current-route';
import { guard, guardTarget, loginUrl } from './guard';

export function PublicGuard() {
  const current = useCurrentRoute();
  const location = useLocation();
  const signedIn = useSignedIn();
  const action = guard({
    to: guardTarget(current, location),
    signedIn,
    role: undefined,
    menuFromServer: false,
    serverMenu: undefined,
  });
  if (action.type === 'login') return <Navigate to={loginUrl(action.query)} replace />;
  // 'allow', or a signed-in visit whose role is not known here: the protected shell decides.
  return <Outlet />;
}
