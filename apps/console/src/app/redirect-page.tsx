/** `/redirect/<path>`: leaves and re-enters a page so it mounts afresh (the tab bar's "reload"). */
import { Navigate, useLocation, useParams } from 'react-router';

export default function RedirectPage() {
  const params = useParams();
  const location = useLocation();
  const target = `/${params['*'] ?? ''}`;
  // Only paths inside the console: a protocol-relative "//host" would leave it.
  const safe = target.startsWith('//') ? '/' : target;
  return <Navigate to={`${safe}${location.search}`} replace />;
}
