// Drift check: compares a server's own self-description — a WordPress-style route index
// (`GET /wp-json/?context=help`: every route as a regular expression, its methods and, per endpoint,
// the JSON Schema of each argument) — with the OpenAPI description of the same server. For every
// route both describe it compares methods and, per method, argument names, types, enums, defaults,
// bounds and requiredness (GET/DELETE arguments ↔ path and query parameters; POST/PUT/PATCH
// arguments ↔ path and query parameters or request body properties). Differences are data: the
// caller decides which are allowed (an allow-list with a reason per entry, for the versions it names)
// and which fail. Given the target's version, what the spec marks as newer (`x-wp-since`), older
// (`x-wp-before`) or never served (`x-wp-no-route`) is compared as that version has it.

import type { Operation, SpecValidator } from '@platform-api/validator';
import {
  isObject,
  type JsonObject,
  joinPointer,
  type OpenApiDocument,
  resolveLocal,
} from '@platform-api/validator';
import { inVersionRange, olderThan, wpBeforeFor, wpNoRoute, wpSince } from './versions.js';

/** The parts of a route index the check reads (WordPress's `/wp-json/` answer). */
export interface RouteIndex {
  routes: Record<string, RouteIndexEntry>;
}

export interface RouteIndexEntry {
  namespace?: string;
  methods: string[];
  endpoints: Array<{ methods: string[]; args?: Record<string, JsonObject> }>;
}

export type DriftAspect =
  | 'method'
  | 'argument'
  | 'type'
  | 'enum'
  | 'default'
  | 'minimum'
  | 'maximum'
  | 'minItems'
  | 'maxItems'
  | 'required'
  | 'items.type'
  | 'items.enum';

export interface Difference {
  /** The spec's path template. */
  route: string;
  method: string;
  /** The argument, or undefined for a method difference. */
  argument?: string;
  aspect: DriftAspect;
  spec: unknown;
  target: unknown;
}

export interface ComparedRoute {
  template: string;
  targetRoute: string;
  methods: string[];
  argumentsCompared: number;
}

/** A spec element the target lacks, as the spec's version marks say it should. */
export interface ExpectedAbsence {
  route: string;
  method: string;
  argument?: string;
  /** The mark that explains it (`x-wp-since 6.7`, `x-wp-no-route`). */
  reason: string;
}

export interface DriftReport {
  compared: ComparedRoute[];
  differences: Difference[];
  /** What the target lacks because the spec marks it newer than the target or never served. */
  expected: ExpectedAbsence[];
  /** Target routes with no path in the spec. */
  notDescribed: string[];
  /** Spec paths the target does not offer, with what the spec says about them. */
  notOffered: Array<{ template: string; operations: Operation[] }>;
}

export interface DriftOptions {
  /** The spec's path templates are relative to this prefix of the target's routes ('' for WordPress). */
  routePrefix?: string;
  /**
   * The target's version (`6.1.9`). With it, arguments and operations marked `x-wp-since` a newer version
   * are expected to be absent, and `x-wp-before` schemas replace the described ones. Without it the target
   * is taken to be as current as the spec.
   */
  targetVersion?: string;
}

/**
 * Turns a route regex (`/wp/v2/posts/(?P<id>[\d]+)`) into a template whose placeholders keep the
 * group names (`/wp/v2/posts/{id}`). Named groups may nest groups and character classes.
 */
export function routeToTemplate(route: string): string {
  let template = '';
  let index = 0;
  while (index < route.length) {
    const start = route.indexOf('(?P<', index);
    if (start === -1) {
      template += route.slice(index);
      break;
    }
    template += route.slice(index, start);
    const nameEnd = route.indexOf('>', start);
    const name = route.slice(start + 4, nameEnd);
    template += `{${name}}`;
    index = closingParen(route, start) + 1;
  }
  return template;
}

function closingParen(pattern: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === '(') depth++;
    else if (char === ')') {
      depth--;
      if (depth === 0) return i;
    }
  }
  throw new Error(`Unbalanced group in route ${pattern}`);
}

/** `/wp/v2/posts/{id}` → `/wp/v2/posts/{}`: routes match by shape, names are mapped by position. */
function shape(template: string): string {
  return template.replace(/\{[^}]*\}/g, '{}');
}

function placeholderNames(template: string): string[] {
  return [...template.matchAll(/\{([^}]*)\}/g)].map((match) => match[1] ?? '');
}

export function compareRouteIndex(
  validator: SpecValidator,
  index: RouteIndex,
  options: DriftOptions = {},
): DriftReport {
  const prefix = options.routePrefix ?? '';
  const version = options.targetVersion;
  const document = validator.document;
  const specByShape = new Map<string, { template: string; operations: Operation[] }>();
  for (const operation of validator.operations) {
    if (operation.kind !== 'path') continue;
    const key = shape(`${prefix}${operation.path}`);
    const entry = specByShape.get(key) ?? { template: operation.path, operations: [] };
    entry.operations.push(operation);
    specByShape.set(key, entry);
  }

  const report: DriftReport = {
    compared: [],
    differences: [],
    expected: [],
    notDescribed: [],
    notOffered: [],
  };
  const matchedShapes = new Set<string>();
  for (const [route, entry] of Object.entries(index.routes)) {
    const targetTemplate = routeToTemplate(route);
    const spec = specByShape.get(shape(targetTemplate));
    if (!spec) {
      report.notDescribed.push(route);
      continue;
    }
    matchedShapes.add(shape(targetTemplate));
    // Target argument names of path placeholders → the spec's names, by position.
    const targetNames = placeholderNames(targetTemplate);
    const specNames = placeholderNames(spec.template);
    const rename = new Map(targetNames.map((name, i) => [name, specNames[i] ?? name]));

    const specMethods = new Set(spec.operations.map((operation) => operation.method.toUpperCase()));
    const targetMethods = new Set(entry.methods.map((method) => method.toUpperCase()));
    const operationFor = (method: string) =>
      spec.operations.find((operation) => operation.method.toUpperCase() === method);
    for (const method of targetMethods) {
      const operation = operationFor(method);
      if (!operation || wpNoRoute(operation.node)) {
        report.differences.push({
          route: spec.template,
          method,
          aspect: 'method',
          spec: operation ? 'x-wp-no-route' : 'absent',
          target: 'offered',
        });
      }
    }
    for (const method of specMethods) {
      if (!targetMethods.has(method)) {
        const reason = absenceReason(operationFor(method)?.node, version);
        if (reason) report.expected.push({ route: spec.template, method, reason });
        else
          report.differences.push({
            route: spec.template,
            method,
            aspect: 'method',
            spec: 'described',
            target: 'absent',
          });
      }
    }

    let argumentsCompared = 0;
    for (const operation of spec.operations) {
      const method = operation.method.toUpperCase();
      const endpoint = entry.endpoints.find((candidate) =>
        candidate.methods.map((m) => m.toUpperCase()).includes(method),
      );
      if (!endpoint) continue;
      const specArgs = specArguments(validator, operation);
      const targetArgs = new Map(
        Object.entries(endpoint.args ?? {}).map(([name, schema]) => [rename.get(name) ?? name, schema]),
      );
      for (const [name, targetSchema] of targetArgs) {
        const specArg = specArgs.get(name);
        const newer = specArg && absenceReason(specArg.marks, version);
        if (!specArg || newer) {
          report.differences.push({
            route: spec.template,
            method,
            argument: name,
            aspect: 'argument',
            spec: newer ?? 'absent',
            target: 'accepted',
          });
          continue;
        }
        argumentsCompared++;
        const at = { route: spec.template, method, argument: name };
        const older =
          version === undefined
            ? undefined
            : specArg.marks.map((marks) => wpBeforeFor(marks, version)).find(Boolean);
        const schema = older?.schema ?? specArg.schema;
        compareShapes(at, specShape(document, schema), targetShape(targetSchema), report.differences);
        const targetRequired = targetSchema.required === true;
        // A path parameter is required by being in the URL; WordPress does not mark route groups required.
        if (!specArg.inPath && targetRequired !== specArg.required) {
          report.differences.push({
            ...at,
            aspect: 'required',
            spec: specArg.required,
            target: targetRequired,
          });
        }
      }
      for (const [name, specArg] of specArgs) {
        // The route's own groups constrain path parameters; WordPress lists them as arguments only sometimes.
        if (!targetArgs.has(name) && !specArg.inPath) {
          const reason = absenceReason(specArg.marks, version);
          if (reason) {
            report.expected.push({ route: spec.template, method, argument: name, reason });
            continue;
          }
          report.differences.push({
            route: spec.template,
            method,
            argument: name,
            aspect: 'argument',
            spec: 'described',
            target: 'absent',
          });
        }
      }
    }
    report.compared.push({
      template: spec.template,
      targetRoute: route,
      methods: [...targetMethods],
      argumentsCompared,
    });
  }
  for (const [key, spec] of specByShape) {
    if (!matchedShapes.has(key)) report.notOffered.push(spec);
  }
  return report;
}

interface SpecArgument {
  schema: unknown;
  required: boolean;
  inPath: boolean;
  /** The nodes that may carry version marks: the parameter and its schema, or the property's schemas. */
  marks: unknown[];
}

/**
 * Why a target of this version lacks what these nodes describe, when their marks say it should
 * (`x-wp-no-route`; `x-wp-since` newer than the version; `x-wp-before` with no schema); undefined when it
 * should have it.
 */
function absenceReason(marks: unknown, version: string | undefined): string | undefined {
  for (const node of Array.isArray(marks) ? marks : [marks]) {
    if (wpNoRoute(node)) return 'x-wp-no-route';
    if (version === undefined) continue;
    const since = wpSince(node);
    if (since && olderThan(version, since)) return `x-wp-since ${since}`;
    // An `x-wp-before` entry without a schema: versions before it lack the thing.
    const older = wpBeforeFor(node, version);
    if (older && older.schema === undefined) return `x-wp-before ${older.version}`;
  }
  return undefined;
}

/**
 * The arguments an operation documents: path and query parameters, and for writes the properties
 * of every object-shaped request body (JSON, form, multipart).
 */
function specArguments(validator: SpecValidator, operation: Operation): Map<string, SpecArgument> {
  const document = validator.document;
  const args = new Map<string, SpecArgument>();
  for (const parameter of operation.parameters) {
    const { node } = parameter;
    if (node.in !== 'path' && node.in !== 'query') continue;
    args.set(String(node.name), {
      schema: node.schema ?? {},
      required: node.required === true || node.in === 'path',
      inPath: node.in === 'path',
      marks: [node, resolveSchema(document, node.schema)],
    });
  }
  if (operation.node.requestBody === undefined) return args;
  const body = resolveLocal(document, {
    node: operation.node.requestBody,
    pointer: joinPointer(operation.pointer, 'requestBody'),
  });
  const content = isObject(body.node.content) ? body.node.content : {};
  for (const media of Object.values(content)) {
    if (!isObject(media) || media.schema === undefined) continue;
    const { properties, required } = objectProperties(document, media.schema);
    for (const [name, schemas] of properties) {
      if (args.has(name)) continue;
      const required_ = body.node.required === true && required.has(name);
      args.set(name, {
        schema: { allOf: schemas },
        required: required_,
        inPath: false,
        marks: schemas.map((schema) => resolveSchema(document, schema)),
      });
    }
  }
  return args;
}

/**
 * Properties (and required names) of an object schema, through `$ref` and `allOf`; a property that
 * several `allOf` members describe (a type in one, a default in another) keeps all its schemas, in order.
 */
function objectProperties(
  document: OpenApiDocument,
  raw: unknown,
): { properties: Map<string, unknown[]>; required: Set<string> } {
  const properties = new Map<string, unknown[]>();
  const required = new Set<string>();
  const visit = (node: unknown) => {
    const schema = resolveSchema(document, node);
    if (!schema) return;
    if (Array.isArray(schema.allOf)) for (const part of schema.allOf) visit(part);
    if (isObject(schema.properties)) {
      for (const [name, property] of Object.entries(schema.properties)) {
        properties.set(name, [...(properties.get(name) ?? []), property]);
      }
    }
    if (Array.isArray(schema.required)) for (const name of schema.required) required.add(String(name));
  };
  visit(raw);
  return { properties, required };
}

function resolveSchema(document: OpenApiDocument, node: unknown): JsonObject | undefined {
  if (!isObject(node)) return undefined;
  return resolveLocal(document, { node, pointer: '' }).node;
}

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
function specShape(document: OpenApiDocument, raw: unknown): ArgumentShape {
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
function targetShape(schema: JsonObject): ArgumentShape {
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

function compareShapes(
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

/**
 * A reviewed, allowed difference. `route`, `method` and `argument` may list several; `argument` is
 * omitted for methods. `versions` (a range such as `>=6.1 <6.3`, or a list of ranges) names the target versions the
 * entry applies to; without it the entry applies to every version.
 */
export interface AllowEntry {
  route: string | string[];
  method?: string | string[];
  argument?: string | string[];
  aspect: DriftAspect;
  versions?: string | string[];
  reason: string;
}

/** Whether an entry applies to a target version (an unknown version: every entry may apply). */
export function appliesTo(entry: AllowEntry, version: string | undefined): boolean {
  return entry.versions === undefined || version === undefined || inVersionRange(version, entry.versions);
}

function listOf(value: string | string[] | undefined): string[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}

function allows(entry: AllowEntry, difference: Difference): boolean {
  const routes = listOf(entry.route) ?? [];
  const methods = listOf(entry.method)?.map((method) => method.toUpperCase());
  return (
    routes.includes(difference.route) &&
    (methods === undefined || methods.includes(difference.method)) &&
    (difference.argument === undefined
      ? entry.argument === undefined
      : (listOf(entry.argument)?.includes(difference.argument) ?? false)) &&
    entry.aspect === difference.aspect
  );
}

export interface Triage {
  allowed: Array<{ difference: Difference; entry: AllowEntry }>;
  unexpected: Difference[];
  /** Entries that apply to the target's version but match no difference there (a known version only). */
  stale: AllowEntry[];
  /** Entries that do not apply to the target's version. */
  notApplicable: AllowEntry[];
}

export function triageDifferences(
  differences: Difference[],
  allowList: AllowEntry[],
  targetVersion?: string,
): Triage {
  const applicable = allowList.filter((entry) => appliesTo(entry, targetVersion));
  const triage: Triage = {
    allowed: [],
    unexpected: [],
    stale: [],
    notApplicable: allowList.filter((entry) => !applicable.includes(entry)),
  };
  const used = new Set<AllowEntry>();
  for (const difference of differences) {
    const entry = applicable.find((candidate) => allows(candidate, difference));
    if (entry) {
      used.add(entry);
      triage.allowed.push({ difference, entry });
    } else {
      triage.unexpected.push(difference);
    }
  }
  // With no version known, a version-bound entry may rightly match nothing; only unbound ones go stale.
  triage.stale = applicable.filter(
    (entry) => !used.has(entry) && (targetVersion !== undefined || entry.versions === undefined),
  );
  return triage;
}

export function describeDifference(difference: Difference): string {
  const where = `${difference.method} ${difference.route}${difference.argument ? ` ${difference.argument}` : ''}`;
  return `${where} [${difference.aspect}] spec ${JSON.stringify(difference.spec)} ≠ target ${JSON.stringify(difference.target)}`;
}
