// Requests generated from an operation's parameter and body schemas: schema-valid ones (positive) and
// ones that break exactly one constraint of one parameter or of the body (negative). The values come
// from src/generation; this file only assembles them into calls.
import { isObject, type Located, type Operation, type SpecValidator } from '@platform-api/validator';
import fc from 'fast-check';
import type { CallOptions, QueryValue } from '../client.js';
import { exampleRequest } from '../examples.js';
import { malformedBody } from './malformed-bodies.js';
import {
  type Freshened,
  type InvalidValue,
  invalidValues,
  requestBodySchema,
  sampleOne,
  uniqueFields,
  validValues,
  withFreshUniques,
} from './values/index.js';

/** How strings are generated: whether U+0000 may appear (default yes). */
export interface TextOptions {
  allowNul?: boolean;
}

export interface GeneratedRequest {
  options: CallOptions;
  /** For a negative request: what it breaks ("query limit: maximum (500)"). */
  violates?: string;
  /** A JSON body sent as bytes that are no JSON text (malformed-bodies.ts). */
  malformed?: boolean;
  /** A unique field the body carries with a value not made fresh for it (values/unique.ts). */
  stale?: string;
}

/**
 * Puts fresh values into the unique fields of a body value (`keep`: the fields the request tests, left
 * as they are), for one request.
 */
export type Freshen = (body: unknown, keep?: (name: string) => boolean) => Freshened;

/**
 * The operation's Freshen, each call with a new tag (`tag`: the session's uniqueTag()); undefined when its
 * body has no unique field.
 */
export function freshener(
  validator: SpecValidator,
  operation: Operation,
  tag: () => string,
): Freshen | undefined {
  const body = requestBodySchema(operation);
  if (!body || uniqueFields(validator, body.schema).length === 0) return undefined;
  return (value, keep) => withFreshUniques(validator, body.schema, value, tag(), keep);
}

/** A request with fresh unique values in its (not yet encoded) body, and the field left stale if any. */
export function freshRequest(
  request: CallOptions,
  freshen: Freshen | undefined,
  keep?: (name: string) => boolean,
): { options: CallOptions; stale?: string } {
  if (!freshen || !isObject(request.body)) return { options: request };
  const { value, stale } = freshen(request.body, keep);
  return { options: { ...request, body: value }, ...(stale === undefined ? {} : { stale }) };
}

/** Makes the body among `values` fresh in place; returns the field left stale, if any. */
function freshenBody(parts: Part[], values: unknown[], freshen: Freshen | undefined): string | undefined {
  const index = parts.findIndex((part) => part.location === 'body');
  if (!freshen || index < 0 || values[index] === undefined) return undefined;
  const { value, stale } = freshen(values[index]);
  values[index] = value;
  return stale;
}

type ParameterLocation = 'path' | 'query' | 'header';

/** Parameters a request can carry (cookies are never sent; authorization comes from the credentials). */
function sendableParameters(operation: Operation) {
  return operation.parameters.filter(
    (parameter) =>
      parameter.node.in !== 'cookie' &&
      !(parameter.node.in === 'header' && parameter.node.name.toLowerCase() === 'authorization'),
  );
}

function schemaOf(parameter: Located): Located<unknown> | undefined {
  const schema = parameter.node.schema;
  if (schema === undefined) return undefined;
  return { node: schema, pointer: `${parameter.pointer}/schema` };
}

/** A parameter value as it travels: arrays stay arrays (the client serialises them), the rest as text. */
function wireValue(value: unknown): string | QueryValue {
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'number' ? item : wireText(item)));
  return wireText(value);
}

function wireText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function place(options: CallOptions, location: ParameterLocation, name: string, value: unknown): void {
  if (location === 'path') options.path = { ...options.path, [name]: wireText(value) };
  else if (location === 'query') options.query = { ...options.query, [name]: wireValue(value) as QueryValue };
  else options.headers = { ...options.headers, [name]: wireText(value) };
}

function encodeBody(mediaType: string, value: unknown): unknown {
  if (mediaType !== 'application/x-www-form-urlencoded') return value;
  const form = new URLSearchParams();
  if (value && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) form.append(name, wireText(item));
  }
  return form.toString();
}

type Part = { name: string; required: boolean; schema: Located<unknown> } & (
  | { location: ParameterLocation; mediaType?: undefined }
  | { location: 'body'; mediaType: string }
);

/** The parts of an operation's request: its sendable parameters, then its body. */
export function requestParts(operation: Operation): Part[] {
  const parts: Part[] = [];
  for (const parameter of sendableParameters(operation)) {
    const schema = schemaOf(parameter);
    if (!schema) continue;
    const location = parameter.node.in as ParameterLocation;
    parts.push({
      location,
      name: parameter.node.name,
      required: location === 'path' || parameter.node.required === true,
      schema,
    });
  }
  const body = requestBodySchema(operation);
  if (body) {
    parts.push({
      location: 'body',
      name: 'body',
      required: operation.requestBody?.required ?? false,
      schema: body.schema,
      mediaType: body.mediaType,
    });
  }
  return parts;
}

function assemble(parts: Part[], values: unknown[]): CallOptions {
  const options: CallOptions = { path: {}, query: {}, headers: {} };
  parts.forEach((part, index) => {
    const value = values[index];
    if (value === undefined) return;
    if (part.location === 'body') {
      options.contentType = part.mediaType;
      options.body = encodeBody(part.mediaType, value);
    } else place(options, part.location, part.name, value);
  });
  return options;
}

function validPart(validator: SpecValidator, part: Part, text: TextOptions): fc.Arbitrary<unknown> {
  const values = validValues(validator, part.schema, { location: generationLocation(part), ...text });
  return part.required ? values : fc.option(values, { nil: undefined });
}

/** Schema-valid requests: every required part, optional ones sometimes. */
export function positiveRequests(
  validator: SpecValidator,
  operation: Operation,
  text: TextOptions = {},
  { freshen }: { freshen?: Freshen } = {},
): fc.Arbitrary<GeneratedRequest> {
  const parts = requestParts(operation);
  return fc.tuple(...parts.map((part) => validPart(validator, part, text))).map((drawn) => {
    const values = [...drawn];
    const stale = freshenBody(parts, values, freshen);
    return {
      options: assemble(parts, values),
      ...(stale === undefined ? {} : { stale }),
    };
  });
}

/**
 * Requests that break exactly one thing: one part gets a value its schema refuses, or a required part is
 * left out; every other part stays valid. Undefined when nothing about the operation can be broken.
 */
export function negativeRequests(
  validator: SpecValidator,
  operation: Operation,
  text: TextOptions = {},
  { malformedBodies = true, freshen }: { malformedBodies?: boolean; freshen?: Freshen } = {},
): fc.Arbitrary<GeneratedRequest> | undefined {
  const parts = requestParts(operation);
  const variants: fc.Arbitrary<GeneratedRequest>[] = [];
  parts.forEach((broken, brokenIndex) => {
    const others = parts.map((part, index) =>
      index === brokenIndex ? fc.constant(undefined) : validPart(validator, part, text),
    );
    const invalid =
      sendableInvalid(broken) &&
      invalidValues(validator, broken.schema, { location: generationLocation(broken), ...text }, (value) =>
        sendableInvalid(broken, value),
      );
    if (invalid) {
      variants.push(
        fc.tuple(invalid, ...others).map(([bad, ...values]) => {
          const { value, violates } = bad as InvalidValue;
          values[brokenIndex] = value;
          // The broken value of a unique field does not fit its schema: it stays, and makes it stale.
          const stale = freshenBody(parts, values, freshen);
          return {
            options: assemble(parts, values),
            violates: `${label(broken)}: ${violates}`,
            ...(stale === undefined ? {} : { stale }),
          };
        }),
      );
    }
    // A JSON body that is no JSON text at all (cut short, not UTF-8), everything else valid.
    if (malformedBodies && isJsonBody(broken)) {
      const valid = validValues(validator, broken.schema, { location: 'body', ...text });
      // Made fresh before they become bytes: a lenient server must meet no conflict, but accept them.
      const bodies = freshen ? valid.map((value) => freshen(value).value) : valid;
      variants.push(
        fc.tuple(malformedBody(bodies), ...others).map(([malformed, ...values]) => {
          values[brokenIndex] = malformed.bytes;
          return { options: assemble(parts, values), violates: `body: ${malformed.label}`, malformed: true };
        }),
      );
    }
    // A missing path parameter changes the path itself, which is another operation's business.
    if (broken.required && broken.location !== 'path') {
      variants.push(
        fc.tuple(...others).map((drawn) => {
          const values = [...drawn];
          const stale = freshenBody(parts, values, freshen);
          return {
            options: assemble(parts, values),
            violates: `${label(broken)}: required, left out`,
            ...(stale === undefined ? {} : { stale }),
          };
        }),
      );
    }
  });
  return variants.length > 0 ? fc.oneof(...variants) : undefined;
}

/**
 * Whether an invalid value can travel as itself. Only JSON bodies carry types: a form body is fields of
 * text and a CSV body is text, so their "wrong type" values cannot be sent. A JSON `null` or a form with
 * no field, where the body is optional, reads as "no body": left out.
 */
export function sendableInvalid(part: Part, value?: unknown): boolean {
  if (part.location !== 'body') return true;
  if (part.mediaType === 'application/x-www-form-urlencoded')
    return value === undefined || (isObject(value) && (part.required || Object.keys(value).length > 0));
  if (!part.mediaType?.includes('json')) return false;
  return part.required || value !== null;
}

/** Whether the part is a JSON body (which can be sent as malformed bytes). */
export function isJsonBody(part: Part): boolean {
  return part.location === 'body' && (part.mediaType?.includes('json') ?? false);
}

/** Form fields travel as text, like query parameters, and are judged as such (coerced). */
export function generationLocation(part: Part): Part['location'] {
  return part.mediaType === 'application/x-www-form-urlencoded' ? 'query' : part.location;
}

function label(part: Part): string {
  return part.location === 'body' ? 'body' : `${part.location} ${part.name}`;
}

export type { Part as RequestPart };

/** A valid starting request: the spec's examples where they exist, otherwise one generated request. */
export function baseRequest(
  validator: SpecValidator,
  operation: Operation,
  seed: number,
  text: TextOptions = {},
): CallOptions {
  try {
    return exampleRequest(validator, operation);
  } catch {
    return sampleOne(positiveRequests(validator, operation, text), seed).options;
  }
}

/** Puts one value into a copy of a request, where the part lives. */
export function withPart(request: CallOptions, part: Part, value: unknown): CallOptions {
  const query = { ...request.query };
  const headers = { ...request.headers };
  const copy: CallOptions = { ...request, path: { ...request.path }, query, headers };
  if (part.location === 'body') {
    copy.contentType = part.mediaType;
    copy.body = encodeBody(part.mediaType, value);
    if (value === undefined) delete copy.body;
  } else if (value === undefined) {
    if (part.location === 'query') delete query[part.name];
    else if (part.location === 'header') delete headers[part.name];
  } else place(copy, part.location, part.name, value);
  return copy;
}
