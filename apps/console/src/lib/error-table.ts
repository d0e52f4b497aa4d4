/**
 * The contract's error code table (zh-CN and en-US text of every code), loaded with the first failure rather than
 * with the sign-in page: ~1.5 KB gzipped that a successful visit never reads. main.tsx warms it at the first click
 * or key press, next to the toasts.
 */
import type * as Errors from '@cellhub/contract/errors';

type ErrorTable = typeof Errors;

let loading: Promise<ErrorTable | undefined> | undefined;

/** Answers undefined when the chunk cannot be fetched (network down); the next failure tries again. */
export function loadErrorTable(): Promise<ErrorTable | undefined> {
  loading ??= import('@cellhub/contract/errors').catch(() => {
    loading = undefined;
    return undefined;
  });
  return loading;
}
