/**
 * Toasts (Arco's Message) that load on first use. Message and its animation library are ~5 KB gzipped the sign-in
 * page does not need before its form is usable; main.tsx warms this chunk at the first click or key press, so by
 * the time anything is said it is normally already here.
 */
import type { Message as ArcoMessage } from '@arco-design/web-react';

type MessageApi = typeof ArcoMessage;
export type ToastKind = 'success' | 'info' | 'warning' | 'error';

let api: MessageApi | undefined;
let loading: Promise<MessageApi> | undefined;

export function loadToasts(): Promise<MessageApi> {
  loading ??= import('./toast-impl').then(
    (m) => (api = m.Message),
    (e: unknown) => {
      loading = undefined; // a failed chunk download is retried on the next toast
      throw e;
    },
  );
  return loading;
}

/** Shows a toast; synchronous once Message is loaded, otherwise as soon as it is. */
export function toast(kind: ToastKind, content: string, duration?: number): void {
  const show = (m: MessageApi) => {
    m[kind](duration === undefined ? content : { content, duration });
  };
  if (api) show(api);
  else loadToasts().then(show, () => undefined);
}
