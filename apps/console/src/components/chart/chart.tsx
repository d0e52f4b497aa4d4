import { Spin } from '@arco-design/web-react';
import { lazy, Suspense } from 'react';
import type { EchartsViewProps } from './echarts-view';

export type { ChartOption, ChartTheme } from './echarts-view';

const EchartsView = lazy(() => import('./echarts-view'));

/** A chart that loads ECharts on first use; the page around it renders at once. */
export function Chart(props: EchartsViewProps) {
  return (
    <Suspense
      fallback={
        <div
          style={{ height: props.height, display: 'flex', alignItems: 'center', justifyContent: 'center' }}
        >
          <Spin />
        </div>
      }
    >
      <EchartsView {...props} />
    </Suspense>
  );
}
