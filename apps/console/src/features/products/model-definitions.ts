import type { ProductProperty } from '@cellhub/contract/products';
import type { ModelParam, ThingModel } from '@cellhub/contract/thing-model';
import type { ReservedKey } from './components/property-fields';

/** A parameter of the thing model's events or services offered as a new property. */
export interface ModelCandidate {
  key: string;
  name: string;
  unit: string;
  datatype: ProductProperty['datatype'];
  /** The event or service it belongs to. */
  kind: 'event' | 'service';
  owner: string;
  /** The model's own type (int, float, enum, hex...), shown beside the name. */
  paramType: ModelParam['datatype'];
}

/** Property types for the model's parameter types: numbers stay numbers, the rest are text. */
const PROPERTY_TYPE: Record<ModelParam['datatype'], ProductProperty['datatype']> = {
  int: 'number',
  float: 'number',
  bool: 'bool',
  string: 'string',
  enum: 'string',
  hex: 'string',
};

/** The identifiers a property key may not take: the keys of the model's events and services. */
export function reservedKeys(model: Pick<ThingModel, 'events' | 'services'>): ReservedKey[] {
  return [
    ...model.events.map((e) => ({ key: e.key, kind: 'event' as const })),
    ...model.services.map((s) => ({ key: s.key, kind: 'service' as const })),
  ];
}

/**
 * The parameters of the model's events (output) and services (input, then output) that could become properties:
 * not a property yet, not an event's or service's key, each key once (the first one found).
 */
export function modelCandidates(
  model: Pick<ThingModel, 'events' | 'services'>,
  properties: string[],
): ModelCandidate[] {
  const taken = new Set([...properties, ...reservedKeys(model).map((r) => r.key)]);
  const out: ModelCandidate[] = [];
  const offer = (p: ModelParam, kind: 'event' | 'service', owner: string) => {
    if (taken.has(p.key)) return;
    taken.add(p.key);
    out.push({
      key: p.key,
      name: p.name,
      unit: p.unit,
      datatype: PROPERTY_TYPE[p.datatype],
      kind,
      owner,
      paramType: p.datatype,
    });
  };
  for (const e of model.events) for (const p of e.output) offer(p, 'event', e.name);
  for (const s of model.services) for (const p of [...s.input, ...s.output]) offer(p, 'service', s.name);
  return out;
}
