import { getToken } from './auth';
import { ApiError, buildUrl } from './request';

/**
 * Saves a file the API serves to signed-in callers (a firmware binary, an application package). The download needs
 * the bearer token, so it is fetched and handed to the browser as a blob rather than opened as a plain link.
 * Failures answer like the request layer (ApiError with the code).
 */
export async function downloadFile(path: string, filename: string): Promise<void> {
  const token = getToken();
  const res = await fetch(buildUrl(path), {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { code?: number; message?: string };
    throw new ApiError(body.code ?? 0, body.message ?? res.statusText, res.status);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
