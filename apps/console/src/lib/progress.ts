/**
 * The top progress bar (seed section 9: minimum 0.08, speed 200 ms, trickle 0.02 every 800 ms), shared by route
 * changes and requests. A counter keeps overlapping users from ending each other's bar early.
 */
import NProgress from 'nprogress';
import 'nprogress/nprogress.css';

// `trickleRate` exists in nprogress 0.2 but is missing from its type definitions.
NProgress.configure({
  minimum: 0.08,
  speed: 200,
  trickle: true,
  trickleSpeed: 800,
  showSpinner: false,
  ...{ trickleRate: 0.02 },
});

let active = 0;

export function startProgress(): void {
  active += 1;
  if (active === 1) NProgress.start();
}

export function doneProgress(): void {
  if (active === 0) return;
  active -= 1;
  if (active === 0) NProgress.done();
}
