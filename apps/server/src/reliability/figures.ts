import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The reliability suite's figures. Each test that measures a promise calls `figure()` with what it measured; the
 * line is printed at once and appended to a JSON-lines file that `npm run test:reliability` prints again, one figure
 * per line, after the run (scripts/run-reliability.mjs). The test's own assertions decide pass or fail; a figure is
 * what a reader compares with the promise.
 *
 * Two sizes: `npm test` runs the suite at CI size (minutes), `npm run test:reliability` at full size (the issue's
 * numbers: 1,000 devices x 100 messages, 500 inputs per route, 30 s outages, a 30-minute soak).
 */

export type Scale = 'ci' | 'full';

export function scale(): Scale {
  return process.env.RELIABILITY_SCALE === 'full' ? 'full' : 'ci';
}

/** `ci` at CI size, `full` when the suite runs on its own. */
export function sized<T>(ci: T, full: T): T {
  return scale() === 'full' ? full : ci;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

export function figuresFile(): string {
  return process.env.RELIABILITY_FIGURES_FILE ?? join(root, 'test-results', 'reliability-figures.jsonl');
}

export interface Figure {
  /** Short stable name, `area.what` (e.g. `mqtt.malformed_accepted`). */
  name: string;
  value: number | string;
  /** Unit or kind of the value: `count`, `%`, `ms`, `MB`... */
  unit?: string;
  /** The promise it is measured against, in words: `0`, `< 10 %`, `<= 1 s`. */
  target?: string;
  /** What was done to get it: `212 sequences, MQTT 3.1.1 and 5`. */
  detail?: string;
}

export function figure(f: Figure): void {
  const line = { ...f, scale: scale(), at: new Date().toISOString() };
  const text =
    `figure ${f.name}: ${f.value}${f.unit ? ` ${f.unit}` : ''}` +
    (f.target ? ` (target ${f.target})` : '') +
    (f.detail ? ` - ${f.detail}` : '');
  console.log(text);
  try {
    const file = figuresFile();
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  } catch {
    // The printed line is the figure; the file only gathers them for the summary.
  }
}
