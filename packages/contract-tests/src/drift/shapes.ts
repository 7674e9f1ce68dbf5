// Argument schemas of both sides in one normal form (types, enum, default, bounds, items), and their comparison.

import { isObject, type JsonObject, type OpenApiDocument } from '@platform-api/validator';
import { resolveSchema } from './spec-arguments.js';
import type { Difference, DriftAspect } from './types.js';

/** What the check compares of a schema, in one normal form for both sides. */
export interface ArgumentShape {
  types?: string[];
  enum?: unknown[];
  hasDefault: boolean;
  default?: unknown;
  minimum?: string;
  maximum?: string;
  minItems?: number;
  maxItems?: number;
  items?: ArgumentShape;
}

function emptyShape(): ArgumentShape {
  return { hasDefault: false };
}

function typeList(type: unknown): string[] | undefined {
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.map(String);
  return undefined;
}

function union<T>(a: T[] | undefined, b: T[] | undefined): T[] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return [...new Set([...a, ...b])];
}

/** Normal form of an OpenAPI 3.1 (JSON Schema 2020-12) schema: `$ref`, `allOf`, `oneOf`/`anyOf`, `const`. */
export function specShape(document: OpenApiDocument, raw: unknown): ArgumentShape {
  const schema = resolveSchema(document, raw);
  if (!schema) return emptyShape();
  let result = emptyShape();
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : [])
    result = mergeShapes(result, specShape(document, part));
  const alternatives = [
    ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
  ];
  if (alternatives.length > 0) {
    const shapes = alternatives.map((alternative) => specShape(document, alternative));
    result = mergeShapes(result, unionShapes(shapes));
  }
  const own = ownShape(schema, (items) => specShape(document, items));
  if ('exclusiveMinimum' in schema && typeof schema.exclusiveMinimum === 'number')
    own.minimum = `>${schema.exclusiveMinimum}`;
  if ('exclusiveMaximum' in schema && typeof schema.exclusiveMaximum === 'number')
    own.maximum = `<${schema.exclusiveMaximum}`;
  return mergeShapes(result, own);
}

/** Normal form of a WordPress argument schema (JSON Schema draft 4 flavoured: boolean exclusive bounds). */
export function targetShape(schema: JsonObject): ArgumentShape {
  let result = emptyShape();
  const alternatives = [
    ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
  ];
  if (alternatives.length > 0)
    result = unionShapes(alternatives.filter(isObject).map((alternative) => targetShape(alternative)));
  const own = ownShape(schema, (items) => (isObject(items) ? targetShape(items) : emptyShape()));
  if (typeof schema.minimum === 'number' && schema.exclusiveMinimum === true)
    own.minimum = `>${schema.minimum}`;
  if (typeof schema.maximum === 'number' && schema.exclusiveMaximum === true)
    own.maximum = `<${schema.maximum}`;
  return mergeShapes(result, own);
}

function ownShape(schema: JsonObject, items: (raw: unknown) => ArgumentShape): ArgumentShape {
  const shape = emptyShape();
  shape.types = typeList(schema.type);
  if (Array.isArray(schema.enum)) shape.enum = schema.enum;
  if ('const' in schema) shape.enum = [schema.const];
  // `default: null` on an argument that cannot be null is WordPress's way of saying "no default".
  const nullable = shape.types?.includes('null') ?? false;
  if ('default' in schema && (schema.default !== null || nullable)) {
    shape.hasDefault = true;

    shape.default = schema.default;
  }
  if (typeof schema.minimum === 'number') shape.minimum = `>=${schema.minimum}`;
  if (typeof schema.maximum === 'number') shape.maximum = `<=${schema.maximum}`;
  if (typeof schema.minItems === 'number') shape.minItems = schema.minItems;
  if (typeof schema.maxItems === 'number') shape.maxItems = schema.maxItems;
  if (schema.items !== undefined) shape.items = items(schema.items);
  return shape;
}

/** Later keywords win (an `allOf` member refined by the schema's own keywords). */
function mergeShapes(base: ArgumentShape, over: ArgumentShape): ArgumentShape {
  return {
    types: over.types ?? base.types,
    enum: over.enum ?? base.enum,
    hasDefault: over.hasDefault || base.hasDefault,
    default: over.hasDefault ? over.default : base.default,
    minimum: over.minimum ?? base.minimum,
    maximum: over.maximum ?? base.maximum,
    minItems: over.minItems ?? base.minItems,
    maxItems: over.maxItems ?? base.maxItems,
    items: over.items && base.items ? mergeShapes(base.items, over.items) : (over.items ?? base.items),
  };
}

/** Alternatives: the types and enum values of all of them; bounds only when they agree. */
function unionShapes(shapes: ArgumentShape[]): ArgumentShape {
  const result = emptyShape();
  for (const shape of shapes) {
    result.types = union(result.types, shape.types);
    if (shape.items) result.items = result.items ? mergeShapes(result.items, shape.items) : shape.items;
    if (shape.hasDefault && !result.hasDefault) {
      result.hasDefault = true;
      result.default = shape.default;
    }
  }
  // An enum only constrains the union when every alternative is an enum.
  if (shapes.length > 0 && shapes.every((shape) => shape.enum !== undefined)) {
    result.enum = shapes.flatMap((shape) => shape.enum ?? []);
  }
  for (const key of ['minimum', 'maximum', 'minItems', 'maxItems'] as const) {
    const values = new Set(shapes.map((shape) => shape[key]));
    if (values.size === 1) (result as unknown as Record<string, unknown>)[key] = [...values][0];
  }
  return result;
}

function sameSet(a: unknown[], b: unknown[]): boolean {
  const left = new Set(a.map((value) => JSON.stringify(value)));
  const right = new Set(b.map((value) => JSON.stringify(value)));
  return left.size === right.size && [...left].every((value) => right.has(value));
}

/** WordPress turns a scalar default of an array argument into a one-item list (and "" into []). */
function normalDefault(shape: ArgumentShape): unknown {
  if (!shape.hasDefault) return undefined;
  if (shape.types?.includes('array') && !shape.types.includes('string') && !Array.isArray(shape.default)) {
    return shape.default === '' || shape.default === null ? [] : [shape.default];
  }
  return shape.default;
}

export function compareShapes(
  at: { route: string; method: string; argument: string },
  spec: ArgumentShape,
  target: ArgumentShape,
  differences: Difference[],
  prefix = '',
): void {
  const push = (aspect: DriftAspect, specValue: unknown, targetValue: unknown) =>
    differences.push({ ...at, aspect, spec: specValue, target: targetValue });
  // A target that declares no type (WordPress's index `context`) says nothing to compare against.
  if (target.types !== undefined && !sameSet(spec.types ?? [], target.types)) {
    push(`${prefix}type` as DriftAspect, spec.types ?? 'any', target.types);
  }
  if (
    (spec.enum !== undefined || target.enum !== undefined) &&
    !sameSet(spec.enum ?? [], target.enum ?? [])
  ) {
    push(
      `${prefix}enum` as DriftAspect,
      enumDelta(spec.enum, target.enum, 'spec'),
      enumDelta(spec.enum, target.enum, 'target'),
    );
  }
  if (prefix !== '') return;
  const specDefault = normalDefault(spec);
  const targetDefault = normalDefault(target);
  if (
    spec.hasDefault !== target.hasDefault ||
    JSON.stringify(specDefault) !== JSON.stringify(targetDefault)
  ) {
    push('default', spec.hasDefault ? specDefault : 'none', target.hasDefault ? targetDefault : 'none');
  }
  for (const key of ['minimum', 'maximum', 'minItems', 'maxItems'] as const) {
    if (spec[key] !== target[key]) push(key, spec[key] ?? 'none', target[key] ?? 'none');
  }
  if (spec.items || target.items)
    compareShapes(at, spec.items ?? emptyShape(), target.items ?? emptyShape(), differences, 'items.');
}

/** For enums, only the values one side has and the other lacks (readable, stable for allow-listing). */
function enumDelta(
  spec: unknown[] | undefined,
  target: unknown[] | undefined,
  side: 'spec' | 'target',
): unknown {
  if (spec === undefined) return side === 'spec' ? 'none' : target;
  if (target === undefined) return side === 'spec' ? spec : 'none';
  const [mine, theirs] = side === 'spec' ? [spec, target] : [target, spec];
  const other = new Set(theirs.map((value) => JSON.stringify(value)));
  return { only: mine.filter((value) => !other.has(JSON.stringify(value))) };
}
