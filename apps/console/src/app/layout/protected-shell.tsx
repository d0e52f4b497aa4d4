/**
 * Everything behind sign-in, in its own chunk: TanStack Query, the user info, the role-aware half of the guard
 * (seed section 6) and the layout. The login route never downloads it.
 */
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { useSignedIn } from '../../lib/auth';
import { addMessages } from '../../lib/messages';
import zhCNShell from '../../locale/zh-CN-shell';
import { queryClient } from '../../lib/query-client';
import { setAuthExpiredHandler } from '../../lib/request';
import { useSettings } from '../../lib/settings';
import { clearSession, useRole, useUserInfo } from '../../lib/user';
import { useCurrentRoute } from '../current-route';
import { FullPageLoading } from '../full-page-loading';
import { guard, guardTarget, loginUrl } from '../guard';
import { LazyPage } from '../lazy-page';
import Layout from './layout';
import { RoleRedirect } from './role-redirect';

// The shell's Chinese texts (menus, navbar, settings) come with the shell, before any of it renders.
addMessages('zh-CN', zhCNShell);

function useAuthExpiredHandler() {
  const navigate = useNavigate();
  const client = useQueryClient();
  useEffect(() => {
    setAuthExpiredHandler(() => {
      clearSession(client);
      void navigate('/login');
    });
  }, [navigate, client]);
}

function ProtectedGuard() {
  useAuthExpiredHandler();
  const current = useCurrentRoute();
  const location = useLocation();
  const signedIn = useSignedIn();
  const info = useUserInfo();
  const role = useRole();
  const settings = useSettings();
  const client = useQueryClient();

  const action = guard({
    to: guardTarget(current, location),
    signedIn,
    role,
    userInfoFailed: info.isError,
    menuFromServer: settings.menuFromServer,
    serverMenu: settings.serverMenu,
  });

  useEffect(() => {
    if (action.type === 'logout') clearSession(client);
    if (action.type === 'fetchServerMenu') void import('../server-menu').then((m) => m.loadServerMenu());
  }, [action.type, client]);

  // Signed out on a public route inside the shell (an unknown path): the page alone, without the layout.
  if (!signedIn && action.type === 'allow') {
    return (
      <div className="standalone-page">
        <Outlet />
      </div>
    );
  }

  switch (action.type) {
    case 'allow':
      return <Layout />;
    case 'notFound':
      return (
        <Layout>
          <LazyPage name="notFound" />
        </Layout>
      );
    case 'login':
      return <Navigate to={loginUrl(action.query)} replace />;
    case 'redirect':
      return <RoleRedirect to={action.path} denied={action.denied} />;
    case 'logout':
    case 'fetchUserInfo':
    case 'fetchServerMenu':
      return <FullPageLoading />;
  }
}

export default function ProtectedShell() {
  return (
    <QueryClientProvider client={queryClient}>
      <ProtectedGuard />
    </QueryClientProvider>
  );
}
