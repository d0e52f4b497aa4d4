/**
 * A DTU that polls its own Modbus slaves (docs/device-protocol.md, configuration group `modbus`): once the platform
 * has pushed a data template in `dtu` collect mode, the simulated DTU reports each variable as a property keyed by
 * its tag, as a real one would after reading its meter. Values wander around a level of their own per tag (a seeded
 * random walk); `bool` variables flip now and then. Write-only variables are not reported.
 */
import { hashSeed, seededRandom } from './telemetry';

interface PolledVariable {
  tag: string;
  format: string;
  decimals: number;
}

/** The readable variables of a configuration's `modbus` group; none when the group is missing or malformed. */
export function polledVariables(config: Record<string, unknown>): PolledVariable[] {
  const group = config.modbus;
  if (typeof group !== 'object' || group === null) return [];
  const slaves = (group as { slaves?: unknown }).slaves;
  if (!Array.isArray(slaves)) return [];
  const out: PolledVariable[] = [];
  for (const slave of slaves) {
    const variables = (slave as { variables?: unknown } | null)?.variables;
    if (!Array.isArray(variables)) continue;
    for (const v of variables as Record<string, unknown>[]) {
      if (typeof v?.tag !== 'string' || v.tag === '' || v.access === 'w') continue;
      const decimals = typeof v.decimals === 'number' && v.decimals >= 0 && v.decimals <= 4 ? v.decimals : 0;
      out.push({ tag: v.tag, format: typeof v.format === 'string' ? v.format : 'int16', decimals });
    }
  }
  return out;
}

/** Readings of the variables a pushed template names, per device (seeded by sn and tag). */
export class DtuPolledValues {
  private readonly levels = new Map<string, { value: number; mean: number; random: () => number }>();

  constructor(private readonly sn: string) {}

  sample(config: Record<string, unknown>): Record<string, number | boolean> {
    const out: Record<string, number | boolean> = {};
    for (const v of polledVariables(config)) {
      let w = this.levels.get(v.tag);
      if (!w) {
        const random = seededRandom(hashSeed(`${this.sn}/${v.tag}`));
        const mean = 10 + random() * 90;
        w = { value: mean, mean, random };
        this.levels.set(v.tag, w);
      }
      if (v.format === 'bool') {
        if (w.random() < 0.1) w.value = w.value > 0.5 ? 0 : 1;
        out[v.tag] = w.value > 0.5;
        continue;
      }
      w.value += (w.random() * 2 - 1) * (w.mean * 0.02) + (w.mean - w.value) * 0.1;
      const scale = 10 ** v.decimals;
      const value = Math.round(w.value * scale) / scale;
      out[v.tag] = v.format.startsWith('u') ? Math.max(0, value) : value;
    }
    return out;
  }
}
