// Requests built from a bundle's own operations and examples, so the mock tests name no path, body or
// status of their own. (The full request builder lives in @platform-api/contract-tests, which depends on
// this package; this is the small subset the mock's tests need.)
import {
  collectOperations,
  loadBundle as loadSpecBundle,
  type OpenApiDocument,
  resolveLocal,
} from '@platform-api/validator';
import type { MockedApi } from '../../src/index.js';

type Json = Record<string, unknown>;

export interface BundleOperation {
  operationId: string;
  method: string;
  /** The spec's path template, e.g. `/v1/users/{id}`. */
  template: string;
  operation: Json;
  parameters: Json[];
}

export interface BuiltRequest {
  path: string;
  query: string;
  init: RequestInit & { headers: Record<string, string> };
}

export function loadBundle(api: MockedApi): Json {
  return loadSpecBundle(api) as Json;
}

/** Follows local `$ref`s (`#/components/…`) until a node without one. */
export function deref(bundle: Json, node: unknown): Json {
  return resolveLocal<Json>(bundle as OpenApiDocument, { node, pointer: '' }).node;
}

export function operations(bundle: Json): BundleOperation[] {
  return collectOperations(bundle as OpenApiDocument)
    .filter((operation) => operation.kind === 'path')
    .map((operation) => ({
      operationId: operation.operationId,
      method: operation.method,
      template: operation.path,
      operation: operation.node,
      parameters: operation.parameters.map((parameter) => parameter.node),
    }));
}

function firstExample(bundle: Json, holder: Json | undefined): unknown {
  if (!holder) return undefined;
  if (holder.example !== undefined) return holder.example;
  const examples = holder.examples;
  if (Array.isArray(examples)) return examples[0];
  if (examples && typeof examples === 'object') {
    const first = Object.values(examples as Json)[0];
    if (first !== undefined) return deref(bundle, first).value;
  }
  return undefined;
}

function parameterValue(bundle: Json, parameter: Json): string {
  const schema = deref(bundle, parameter.schema);
  const value =
    firstExample(bundle, parameter) ??
    firstExample(bundle, schema) ??
    schema.default ??
    (schema.enum as unknown[] | undefined)?.[0] ??
    (schema.type === 'integer' || schema.type === 'number' ? 1 : schema.type === 'boolean' ? true : 'x');
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** The credentials the operation's first security requirement asks for, with the given auth schemes. */
export function credentials(
  bundle: Json,
  op: BundleOperation,
  schemes: { bearer: string; basic: string } = { bearer: 'Bearer', basic: 'Basic' },
): Record<string, string> {
  const requirements = (op.operation.security ?? bundle.security ?? []) as Json[];
  const requirement = requirements.find((r) => Object.keys(r).length > 0);
  const headers: Record<string, string> = {};
  for (const name of Object.keys(requirement ?? {})) {
    const scheme = deref(bundle, (deref(bundle, bundle.components).securitySchemes as Json)[name]);
    if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect' || scheme.scheme === 'bearer') {
      headers.authorization = `${schemes.bearer} mock-token`;
    } else if (scheme.scheme === 'basic') {
      headers.authorization = `${schemes.basic} ${Buffer.from('mock-user:mock-secret').toString('base64')}`;
    } else if (scheme.type === 'apiKey' && scheme.in === 'header') {
      headers[scheme.name as string] = 'mock-key';
    }
  }
  return headers;
}

/** A request for the operation from the spec's examples: path and required query parameters, a body. */
export function exampleRequest(bundle: Json, op: BundleOperation): BuiltRequest {
  let path = op.template;
  const query = new URLSearchParams();
  for (const parameter of op.parameters) {
    if (parameter.in === 'path') {
      path = path.replace(`{${parameter.name}}`, encodeURIComponent(parameterValue(bundle, parameter)));
    } else if (parameter.in === 'query' && parameter.required) {
      query.set(parameter.name as string, parameterValue(bundle, parameter));
    }
  }
  const headers = credentials(bundle, op);
  const init: BuiltRequest['init'] = { method: op.method.toUpperCase(), headers };
  const requestBody = op.operation.requestBody ? deref(bundle, op.operation.requestBody) : undefined;
  const content = requestBody?.content as Json | undefined;
  if (content) {
    const mediaType = 'application/json' in content ? 'application/json' : Object.keys(content)[0];
    if (mediaType && !mediaType.includes('*')) {
      const media = deref(bundle, content[mediaType]);
      const body = firstExample(bundle, media) ?? firstExample(bundle, deref(bundle, media.schema));
      if (body !== undefined) {
        headers['content-type'] = mediaType;
        init.body =
          typeof body === 'string'
            ? body
            : mediaType === 'application/x-www-form-urlencoded'
              ? new URLSearchParams(body as Record<string, string>).toString()
              : JSON.stringify(body);
      }
    }
  }
  const search = query.toString();
  return { path, query: search ? `?${search}` : '', init };
}
