/**
 * The operations of the OpenAPI document at `/api/docs/json`, read once into a shape tests can walk: method, path,
 * path and query parameters with their JSON schemas, and the JSON request body's schema. The route matrix
 * (routes.test.ts) keeps the document equal to the app's routes, so a test that walks these walks every route.
 */

/** The part of JSON Schema (as fastify-type-provider-zod writes it for OpenAPI 3.0) the tests read. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  /** OpenAPI 3.0: a boolean beside `minimum`. */
  exclusiveMinimum?: boolean | number;
  exclusiveMaximum?: boolean | number;
  nullable?: boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

export interface OperationParam {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As in the document: `/api/devices/{sn}`. */
  path: string;
  summary: string;
  pathParams: OperationParam[];
  queryParams: OperationParam[];
  /** The `application/json` request body's schema, when the operation takes one. */
  body?: JsonSchema;
  /**
   * Takes a multipart upload. The document does not carry `consumes`, so this is read from the summary and
   * description, which say "multipart" on every upload route.
   */
  multipart: boolean;
}

export interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        summary?: string;
        description?: string;
        parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
      }
    >
  >;
}

export function operationsOf(doc: OpenApiDoc): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]): Operation => {
      const params = (op.parameters ?? [])
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => ({
          name: p.name,
          in: p.in as 'path' | 'query',
          required: p.required === true,
          schema: p.schema ?? {},
        }));
      const text = `${op.summary ?? ''} ${op.description ?? ''}`;
      return {
        method: method.toUpperCase() as Operation['method'],
        path,
        summary: op.summary ?? '',
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        body: op.requestBody?.content?.['application/json']?.schema,
        multipart: /multipart/i.test(text),
      };
    }),
  );
}
