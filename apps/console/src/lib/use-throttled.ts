import { useEffect, useRef, useState } from 'react';

/**
 * `value`, passed on at most once every `ms`: the first value of each `scope` (and the first that is not
 * undefined) at once, later changes of the same scope after the interval since the last one passed on (the newest
 * then, none in between). For views that redraw on live data (a chart of a property reporting every second), so
 * the redraw follows the data at the pace the view needs instead of at the data's.
 */
export function useThrottled<T>(value: T, ms: number, scope: string): T {
  const [shown, setShown] = useState(value);
  const last = useRef<{ at: number; scope: string; value: T }>({ at: 0, scope, value });
  const scopeChanged = last.current.scope !== scope;

  useEffect(() => {
    const pass = () => {
      last.current = { at: Date.now(), scope, value };
      setShown(() => value);
    };
    const wait = last.current.at + ms - Date.now();
    if (scopeChanged || last.current.value === undefined || wait <= 0) {
      pass();
      return;
    }
    const timer = setTimeout(pass, wait);
    return () => clearTimeout(timer);
  }, [value, ms, scope, scopeChanged]);

  // A new scope shows its own value from its first render, never the last one of the old scope.
  return scopeChanged ? value : shown;
}
