/**
 * The ECharts canvas. Only this module imports ECharts, and only the pieces the console draws, so the library
 * lands in one lazily loaded chunk (see chart.tsx).
 */
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GraphicComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { init, use as registerParts, type ComposeOption, type ECharts } from 'echarts/core';
import type { BarSeriesOption, LineSeriesOption, PieSeriesOption } from 'echarts/charts';
import type {
  GraphicComponentOption,
  GridComponentOption,
  LegendComponentOption,
  TooltipComponentOption,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef, useSyncExternalStore, type CSSProperties } from 'react';

registerParts([
  LineChart,
  BarChart,
  PieChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  GraphicComponent,
  CanvasRenderer,
]);

export type ChartOption = ComposeOption<
  | LineSeriesOption
  | BarSeriesOption
  | PieSeriesOption
  | GridComponentOption
  | TooltipComponentOption
  | LegendComponentOption
  | GraphicComponentOption
>;

/** The colours charts take from the Arco theme, read from its CSS variables at draw time. */
export interface ChartTheme {
  dark: boolean;
  text: string;
  subText: string;
  border: string;
  bg: string;
  primary: string;
}

function cssVar(name: string, fallback: string): string {
  const raw = getComputedStyle(document.body).getPropertyValue(name).trim();
  if (!raw) return fallback;
  // Arco keeps palette entries as bare "r,g,b" triples and semantic colours as full colour values.
  return /^\d+\s*,/.test(raw) ? `rgb(${raw})` : raw;
}

function readTheme(): ChartTheme {
  const dark = document.body.getAttribute('arco-theme') === 'dark';
  return {
    dark,
    text: cssVar('--color-text-2', dark ? 'rgba(255,255,255,0.7)' : '#4e5969'),
    subText: cssVar('--color-text-3', dark ? 'rgba(255,255,255,0.5)' : '#86909c'),
    border: cssVar('--color-border-2', dark ? '#484849' : '#e5e6eb'),
    bg: cssVar('--color-bg-2', dark ? '#232324' : '#ffffff'),
    primary: cssVar('--primary-6', '#165dff'),
  };
}

function subscribeTheme(cb: () => void) {
  const obs = new MutationObserver(cb);
  obs.observe(document.body, { attributes: true, attributeFilter: ['arco-theme', 'style', 'class'] });
  return () => obs.disconnect();
}

const themeKey = () => document.body.getAttribute('arco-theme') ?? 'light';

export interface EchartsViewProps {
  /** Builds the option from the theme, so a theme switch redraws with the right colours. */
  option: (theme: ChartTheme) => ChartOption;
  height: number | string;
  style?: CSSProperties;
  className?: string;
}

export default function EchartsView({ option, height, style, className }: EchartsViewProps) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | null>(null);
  const theme = useSyncExternalStore(subscribeTheme, themeKey);

  useEffect(() => {
    if (!el.current) return;
    const instance = init(el.current, undefined, { renderer: 'canvas' });
    chart.current = instance;
    const resize = new ResizeObserver(() => instance.resize());
    resize.observe(el.current);
    return () => {
      resize.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(option(readTheme()), { notMerge: true });
  }, [option, theme]);

  return <div ref={el} className={className} style={{ width: '100%', height, ...style }} />;
}
