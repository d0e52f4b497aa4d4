/**
 * Thing model (seed /product/model): one model per product — its properties (the product's property table), its
 * events (key, name, level, output parameters) and its services (key, name, input and output parameters) — exported
 * as JSON and imported back (validated, previewed as a diff, then replacing the whole model).
 */
import { z } from 'zod';
import { productProperty } from './products';
import { pageQuery } from './common';
import { HEX_RULE, PRODUCT_KEY_RULE, PROPERTY_KEY_RULE } from './protocol';
import { text } from './text';

export const MODEL_PARAM_TYPES = ['int', 'float', 'bool', 'string', 'enum', 'hex'] as const;
export const EVENT_LEVELS = ['info', 'warn', 'error'] as const;
export type EventLevel = (typeof EVENT_LEVELS)[number];

const key = text().regex(PROPERTY_KEY_RULE, 'key_rule');
const uniqueKeys = <T extends { key: string }>(list: T[]) =>
  new Set(list.map((x) => x.key)).size === list.length;

/** A parameter of an event or a service. */
export const modelParam = z.object({
  key,
  name: text().trim().min(1).max(64),
  datatype: z.enum(MODEL_PARAM_TYPES).default('string'),
  unit: text().trim().max(16).default(''),
});
export type ModelParam = z.infer<typeof modelParam>;

const params = z.array(modelParam).max(32).default([]).refine(uniqueKeys, 'duplicate parameter key');

export const modelEvent = z.object({
  key,
  name: text().trim().min(1).max(64),
  name_us: text().trim().max(64).default(''),
  level: z.enum(EVENT_LEVELS).default('info'),
  output: params,
});
export type ModelEvent = z.infer<typeof modelEvent>;

export const modelService = z.object({
  key,
  name: text().trim().min(1).max(64),
  name_us: text().trim().max(64).default(''),
  input: params,
  output: params,
});
export type ModelService = z.infer<typeof modelService>;

/** What is imported: the three lists (a `product_key` in the file is ignored: the target is the URL's product). */
export const thingModelBody = z.object({
  product_key: text().max(64).optional(),
  properties: z.array(productProperty).max(200).default([]).refine(uniqueKeys, 'duplicate property key'),
  events: z.array(modelEvent).max(100).default([]).refine(uniqueKeys, 'duplicate event key'),
  services: z.array(modelService).max(100).default([]).refine(uniqueKeys, 'duplicate service key'),
});
export type ThingModelBody = z.input<typeof thingModelBody>;

export const thingModel = z.object({
  product_key: text(),
  product_name: text(),
  properties: z.array(productProperty),
  events: z.array(modelEvent),
  services: z.array(modelService),
});
export type ThingModel = z.infer<typeof thingModel>;

export const thingModelParams = z.object({ product_key: text().regex(PRODUCT_KEY_RULE, 'product_key_rule') });

const listDiff = z.object({ added: z.array(text()), removed: z.array(text()), changed: z.array(text()) });
export type ListDiff = z.infer<typeof listDiff>;
/** What an import would do, by key. */
export const thingModelDiff = z.object({ properties: listDiff, events: listDiff, services: listDiff });
export type ThingModelDiff = z.infer<typeof thingModelDiff>;

/** Compares two lists by key: added, removed and changed (any field differs) keys. */
export function diffByKey<T extends { key: string }>(before: T[], after: T[]): ListDiff {
  const old = new Map(before.map((x) => [x.key, JSON.stringify(x)]));
  const now = new Map(after.map((x) => [x.key, JSON.stringify(x)]));
  return {
    added: after.filter((x) => !old.has(x.key)).map((x) => x.key),
    removed: before.filter((x) => !now.has(x.key)).map((x) => x.key),
    changed: after.filter((x) => old.has(x.key) && old.get(x.key) !== now.get(x.key)).map((x) => x.key),
  };
}

export function diffModels(
  before: Pick<ThingModel, 'properties' | 'events' | 'services'>,
  after: Pick<ThingModel, 'properties' | 'events' | 'services'>,
): ThingModelDiff {
  return {
    properties: diffByKey(before.properties, after.properties),
    events: diffByKey(before.events, after.events),
    services: diffByKey(before.services, after.services),
  };
}

// --- event occurrences (P/up/event) -------------------------------------------------------------------------------

/** An event parameter's value as stored: what its datatype allows. */
export const eventParamValue = z.union([z.number(), text().max(1024), z.boolean()]);
export type EventParamValue = z.infer<typeof eventParamValue>;

const PARAM_VALUE: Record<(typeof MODEL_PARAM_TYPES)[number], z.ZodType<EventParamValue>> = {
  int: z.number().int(),
  float: z.number(),
  bool: z.boolean(),
  string: text().max(1024),
  enum: z.union([z.number().int(), text().max(1024)]),
  hex: text()
    .max(2048)
    .regex(new RegExp(`${HEX_RULE.source}|^$`)),
};

/**
 * The schema of one event's `params` as the thing model defines them: each key one of the event's output
 * parameters with a value of its datatype; any may be left out, none may be added.
 */
export function eventParamsSchema(event: Pick<ModelEvent, 'output'>) {
  return z.strictObject(
    Object.fromEntries(event.output.map((p) => [p.key, PARAM_VALUE[p.datatype].optional()])),
  ) as unknown as z.ZodType<Record<string, EventParamValue>>;
}

/** One stored occurrence of a thing model event (`GET /api/devices/:sn/events`), newest first. */
export const deviceEventItem = z.object({
  id: z.number().int(),
  event: text(),
  /** The event's name in the model now (its key when the model no longer defines it). */
  name: text(),
  name_us: text(),
  level: z.enum(EVENT_LEVELS),
  params: z.record(text(), eventParamValue),
  /** Device time (server time when the device sent none). */
  ts: text(),
  received_at: text(),
});
export type DeviceEventItem = z.infer<typeof deviceEventItem>;

export const deviceEventsQuery = pageQuery.extend({
  event: text().regex(PROPERTY_KEY_RULE, 'key_rule').optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});
export type DeviceEventsQuery = z.infer<typeof deviceEventsQuery>;

/** `GET /api/devices/:sn/thing-model`: the device's product's model, for whoever may view the device. */
export const deviceThingModel = thingModel;
