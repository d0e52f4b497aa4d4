import { act, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

const loaded = vi.fn();
vi.mock('./echarts-view', () => {
  loaded();
  return { default: () => <div data-testid="echarts-view" /> };
});

describe('Chart', () => {
  it('asks for ECharts only after the frame around it was painted, then draws at once for later charts', async () => {
    const frames: FrameRequestCallback[] = [];
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((cb) => frames.push(cb));
    const { Chart } = await import('./chart');
    const { unmount } = render(<Chart option={() => ({})} height={200} />);
    expect(loaded).not.toHaveBeenCalled();
    expect(screen.queryByTestId('echarts-view')).toBeNull();
    // Two frames (the placeholder is painted), then the idle callback.
    act(() => frames.shift()!(0));
    act(() => frames.shift()!(0));
    expect(loaded).not.toHaveBeenCalled();
    expect(await screen.findByTestId('echarts-view')).toBeTruthy();
    expect(loaded).toHaveBeenCalledTimes(1);
    unmount();
    render(<Chart option={() => ({})} height={200} />);
    expect(await screen.findByTestId('echarts-view')).toBeTruthy();
    expect(frames).toHaveLength(0);
  });
});
