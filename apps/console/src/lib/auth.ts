import { useSyncExternalStore } from 'react';

/**
 * Sign-in state (seed section 4): signed in means a token is stored. Token under `token`, uid under `uid`, both in
 * localStorage so a new tab stays signed in.
 */
const TOKEN_KEY = 'token';
const UID_KEY = 'uid';

type Listener = () => void;
const listeners = new Set<Listener>();

export function getToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function getUid(): number | null {
  const raw = localStorage.getItem(UID_KEY);
  return raw === null ? null : Number(raw);
}

export function setToken(token: string, uid: number | string): void {
  localStorage.setItem(TOKEN_KEY, token);
  localStorage.setItem(UID_KEY, String(uid));
  listeners.forEach((l) => l());
}

export function clearAuth(): void {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(UID_KEY);
  listeners.forEach((l) => l());
}

export function isLoggedIn(): boolean {
  return !!getToken();
}

/** For useSyncExternalStore: re-render when this tab signs in or out. */
export function subscribeAuth(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Re-renders when this tab signs in or out. */
export function useSignedIn(): boolean {
  return useSyncExternalStore(subscribeAuth, isLoggedIn);
}
