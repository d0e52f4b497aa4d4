import { useCallback, useEffect, useRef, useState } from 'react';

/** Seconds left before an SMS code may be requested again; `start` begins a new countdown. */
export function useCountdown(): [number, (seconds: number) => void] {
  const [left, setLeft] = useState(0);
  const timer = useRef<ReturnType<typeof setInterval> | undefined>(undefined);

  const stop = () => {
    if (timer.current !== undefined) clearInterval(timer.current);
    timer.current = undefined;
  };

  const start = useCallback((seconds: number) => {
    stop();
    setLeft(seconds);
    timer.current = setInterval(() => {
      setLeft((s) => {
        if (s <= 1) stop();
        return Math.max(0, s - 1);
      });
    }, 1000);
  }, []);

  useEffect(() => stop, []);
  return [left, start];
}
