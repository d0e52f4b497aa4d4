/**
 * The two calls of the share dialog (share with an account, make a share link). The dialog is used by the device
 * pages and the share list alike, so it lives with the shared components and names the query keys it refreshes.
 */
import type {
  ShareCreateBody,
  ShareCreateResult,
  ShareLinkCreateBody,
  ShareLinkCreated,
} from '@cellhub/contract/shares';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../lib/request';

export const SHARES_KEY = ['shares'] as const;

function useInvalidate() {
  const qc = useQueryClient();
  return () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: SHARES_KEY }),
      // The device list and detail mark what is shared.
      qc.invalidateQueries({ queryKey: ['devices'] }),
    ]);
}

/** Silent: the dialog puts 10210 and 10212 under the receiver field, and toasts anything else itself. */
export function useCreateShare() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: ShareCreateBody) =>
      http.post<ShareCreateResult>('/api/shares', body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useCreateShareLink() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: ShareLinkCreateBody) =>
      http.post<ShareLinkCreated>('/api/share-links', body, { silent: true }),
    onSuccess: invalidate,
  });
}
