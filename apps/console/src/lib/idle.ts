/**
 * Runs `fn` once the page has loaded and the browser has nothing more urgent to do, for work that must not compete
 * with the first screen: decorative parts, warming caches. Answers a function that cancels.
 */
export function whenIdle(fn: () => void, timeoutMs = 2000): () => void {
  let cancelled = false;
  let cancelStep = () => {};
  const idle = () => {
    if (cancelled) return;
    if (typeof window.requestIdleCallback === 'function') {
      const id = window.requestIdleCallback(fn, { timeout: timeoutMs });
      cancelStep = () => window.cancelIdleCallback(id);
    } else {
      // Safari has no requestIdleCallback: a short pause after the load event is close enough.
      const id = window.setTimeout(fn, 200);
      cancelStep = () => window.clearTimeout(id);
    }
  };
  if (document.readyState === 'complete') idle();
  else {
    window.addEventListener('load', idle, { once: true });
    cancelStep = () => window.removeEventListener('load', idle);
  }
  return () => {
    cancelled = true;
    cancelStep();
  };
}

/** Runs `fn` once, on the first pointer or key press anywhere: the moment the user starts to act. */
export function onFirstInput(fn: () => void): void {
  const types = ['pointerdown', 'keydown'] as const;
  const run = () => {
    for (const t of types) window.removeEventListener(t, run, true);
    fn();
  };
  for (const t of types) window.addEventListener(t, run, { capture: true, passive: true });
}
