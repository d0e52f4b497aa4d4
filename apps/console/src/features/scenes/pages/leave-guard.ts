import { useEffect } from 'react';

/**
 * Asks before the tab closes or reloads with unsaved edits. (The app uses a plain BrowserRouter, which has no
 * navigation blocker; in-page buttons that leave ask themselves.)
 */
export function useLeaveGuard(active: boolean, _message: string): void {
  useEffect(() => {
    if (!active) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [active]);
}
