import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/*
 * The bundled platform description (spec/dist/platform.openapi.json, full, with x-internal operations),
 * loaded at run time through the @platform-api/spec package. Everything the server knows about routes,
 * parameters, schemas, status codes, content types and scopes is read from here.
 */

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked generically.
export type OpenApiDocument = Record<string, any>;

/** The $id the bundle is registered under in Ajv; local refs are rebased onto it. */
export const SPEC_ID = 'platform.json';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

export function platformSpecPath(): string {
  return createRequire(import.meta.url).resolve('@platform-api/spec/platform.openapi.json');
}

export function loadPlatformSpec(path = platformSpecPath()): OpenApiDocument {
  return JSON.parse(readFileSync(path, 'utf8')) as OpenApiDocument;
}

/** Follows a local `#/…` JSON pointer inside the document. */
export function resolvePointer(doc: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#')) throw new Error(`only local refs are supported, got ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Record<string, unknown> | undefined)?.[key];
    if (node === undefined) throw new Error(`unresolvable ref ${ref}`);
  }
  return node;
}

/** Dereferences a Reference Object (parameters, request bodies, responses, headers) until it is not one. */
export function deref<T = Record<string, unknown>>(doc: OpenApiDocument, value: unknown): T {
  let node = value as Record<string, unknown>;
  for (let depth = 0; node && typeof node.$ref === 'string' && depth < 20; depth++) {
    node = resolvePointer(doc, node.$ref) as Record<string, unknown>;
  }
  return node as T;
}

/** Deep copy of a schema whose local refs point into the bundle registered in Ajv as SPEC_ID. */
export function rebaseSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebaseSchema);
  if (schema && typeof schema === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
      out[key] =
        key === '$ref' && typeof value === 'string' && value.startsWith('#')
          ? `${SPEC_ID}${value}`
          : rebaseSchema(value);
    }
    return out;
  }
  return schema;
}

export interface SecurityRequirement {
  /** Scheme name → required scopes. An empty object means "no authentication". */
  [scheme: string]: string[];
}

export interface SpecParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Record<string, unknown>;
}

export interface SpecOperation {
  operationId: string;
  method: string;
  /** OpenAPI path template, e.g. /v1/users/{id}. */
  path: string;
  parameters: SpecParameter[];
  requestBody: { required: boolean; content: Record<string, { schema?: unknown }> } | undefined;
  responses: Record<string, Record<string, unknown>>;
  security: SecurityRequirement[];
  /** The first 2xx status the operation documents: what a successful handler answers with. */
  successStatus: number;
  internal: boolean;
}

/** All operations of the document's paths, with path-level parameters merged and refs resolved. */
export function listOperations(doc: OpenApiDocument): SpecOperation[] {
  const operations: SpecOperation[] = [];
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    const item = deref<Record<string, unknown>>(doc, rawItem);
    const shared = ((item.parameters as unknown[]) ?? []).map((p) => deref<SpecParameter>(doc, p));
    for (const method of HTTP_METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const own = ((op.parameters as unknown[]) ?? []).map((p) => deref<SpecParameter>(doc, p));
      const byKey = new Map<string, SpecParameter>();
      for (const p of [...shared, ...own])
        byKey.set(`${p.in}:${p.name}`, { ...p, required: Boolean(p.required) });
      const responses: Record<string, Record<string, unknown>> = {};
      for (const [status, response] of Object.entries((op.responses as Record<string, unknown>) ?? {})) {
        responses[status] = deref(doc, response);
      }
      const success = Object.keys(responses)
        .filter((s) => /^2\d\d$/.test(s))
        .map(Number)
        .sort((a, b) => a - b)[0];
      if (success === undefined) throw new Error(`${String(op.operationId)} documents no 2xx response`);
      const body = op.requestBody
        ? deref<{ required?: boolean; content: Record<string, { schema?: unknown }> }>(doc, op.requestBody)
        : undefined;
      operations.push({
        operationId: String(op.operationId),
        method: method.toUpperCase(),
        path,
        parameters: [...byKey.values()],
        requestBody: body ? { required: Boolean(body.required), content: body.content ?? {} } : undefined,
        responses,
        security: (op.security ?? doc.security ?? []) as SecurityRequirement[],
        successStatus: success,
        internal: op['x-internal'] === true,
      });
    }
  }
  return operations;
}

/** The scopes the oauth2 scheme declares (client-credentials flow). */
export function declaredScopes(doc: OpenApiDocument): string[] {
  const scheme = doc.components?.securitySchemes?.oauth2;
  return Object.keys(scheme?.flows?.clientCredentials?.scopes ?? {});
}

/** `/v1/users/{id}` → `/v1/users/:id` (Fastify's syntax). */
export function toFastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** The JSON schema of an operation's response for a status and media type, rebased for Ajv; undefined if none. */
export function responseSchema(
  op: SpecOperation,
  status: number | string,
  mediaType = 'application/json',
): unknown {
  const content = op.responses[String(status)]?.content as Record<string, { schema?: unknown }> | undefined;
  const schema = content?.[mediaType]?.schema;
  return schema === undefined ? undefined : rebaseSchema(schema);
}
