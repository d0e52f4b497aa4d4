import { Card } from '@arco-design/web-react';
import { useCallback } from 'react';
import { Chart, type ChartTheme } from '../../../components/chart/chart';
import { donutOption } from '../chart-options';

export default function DonutCard({
  title,
  items,
  empty,
}: {
  title: string;
  items: { name: string; value: number }[];
  empty: string;
}) {
  const option = useCallback((theme: ChartTheme) => donutOption({ items, empty }, theme), [items, empty]);
  return (
    <Card
      bordered={false}
      // A narrow column wraps the title instead of cutting it off ("SIM cards by op...").
      title={
        <span title={title} style={{ whiteSpace: 'normal' }}>
          {title}
        </span>
      }
      headerStyle={{ height: 'auto', minHeight: 46 }}
      style={{ height: '100%' }}
    >
      <Chart option={option} height={260} />
    </Card>
  );
}
