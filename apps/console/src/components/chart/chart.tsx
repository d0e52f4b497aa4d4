import { Spin } from '@arco-design/web-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import type { EchartsViewProps } from './echarts-view';

export type { ChartOption, ChartTheme } from './echarts-view';

const EchartsView = lazy(() => import('./echarts-view'));

/** Set once a chart has waited for a painted frame: later charts (another tab, another page) need not wait. */
let painted = false;

/**
 * Calls `fn` after the frame that shows the page around the chart has been painted and the browser is idle (or
 * 1 s later at the latest): ECharts (~165 KB compressed) must not hold back a page's first content.
 */
function afterPaint(fn: () => void): () => void {
  let cancel = () => {};
  const frame = requestAnimationFrame(() => {
    // The second callback runs after the frame with the placeholder was painted.
    const next = requestAnimationFrame(() => {
      if (typeof window.requestIdleCallback === 'function') {
        const id = window.requestIdleCallback(fn, { timeout: 1000 });
        cancel = () => window.cancelIdleCallback(id);
      } else {
        const id = window.setTimeout(fn, 0);
        cancel = () => window.clearTimeout(id);
      }
    });
    cancel = () => cancelAnimationFrame(next);
  });
  cancel = () => cancelAnimationFrame(frame);
  return () => cancel();
}

function Placeholder({ height }: { height: EchartsViewProps['height'] }) {
  return (
    <div style={{ height, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
      <Spin />
    </div>
  );
}

/** A chart that loads ECharts once the page around it is on screen; the page itself renders at once. */
export function Chart(props: EchartsViewProps) {
  const [ready, setReady] = useState(painted);
  useEffect(() => {
    if (ready) return;
    return afterPaint(() => {
      painted = true;
      setReady(true);
    });
  }, [ready]);
  if (!ready) return <Placeholder height={props.height} />;
  return (
    <Suspense fallback={<Placeholder height={props.height} />}>
      <EchartsView {...props} />
    </Suspense>
  );
}
