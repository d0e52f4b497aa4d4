/** Deterministic sample rows for the template screens; labelled as demo wherever they are shown. */
export interface SampleRow {
  id: string;
  name: string;
  contentType: 'img' | 'horizontal' | 'vertical';
  filterType: 'rule' | 'manual';
  count: number;
  createdTime: string;
  status: 'online' | 'offline';
}

const NAMES = ['Sensors', 'Gateways', 'Meters', 'Trackers', 'Pumps', 'Valves', 'Lights', 'Chargers'];
const TYPES = ['img', 'horizontal', 'vertical'] as const;

export const SAMPLE_ROWS: SampleRow[] = Array.from({ length: 36 }, (_, i) => ({
  id: String(1000 + i * 7),
  name: `${NAMES[i % NAMES.length]}-${String.fromCharCode(65 + (i % 26))}${i}`,
  contentType: TYPES[i % 3]!,
  filterType: i % 4 === 0 ? 'manual' : 'rule',
  count: ((i * 337) % 900) + 20,
  createdTime: `2024-0${(i % 9) + 1}-${String((i % 27) + 1).padStart(2, '0')} 10:${String(i % 60).padStart(2, '0')}:00`,
  status: i % 3 === 0 ? 'online' : 'offline',
}));

/** A smooth-looking series of `n` points from a seed, for the demo charts. */
export function sampleSeries(n: number, seed: number, base = 40, amp = 30): number[] {
  return Array.from({ length: n }, (_, i) =>
    Math.round(base + amp * Math.sin((i + seed) / 2.2) + ((i * seed) % 7)),
  );
}
