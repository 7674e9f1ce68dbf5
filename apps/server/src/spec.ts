import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  collectOperations,
  resolveLocal,
  type OpenApiDocument as ValidatorDocument,
} from '@platform-api/validator';

/*
 * The bundled platform description (spec/dist/platform.openapi.json, full, with x-internal operations),
 * loaded at run time through the @platform-api/spec package. Everything the server knows about routes,
 * parameters, schemas, status codes, content types and scopes is read from here.
 */

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked generically.
export type OpenApiDocument = Record<string, any>;

/** The $id the bundle is registered under in Ajv; local refs are rebased onto it. */
export const SPEC_ID = 'platform.json';

export function platformSpecPath(): string {
  return createRequire(import.meta.url).resolve('@platform-api/spec/platform.openapi.json');
}

export function loadPlatformSpec(path = platformSpecPath()): OpenApiDocument {
  return JSON.parse(readFileSync(path, 'utf8')) as OpenApiDocument;
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

/**
 * All operations of the document's paths, in the shape the server routes on: the shared walk of
 * @platform-api/validator (path-level parameters merged, refs followed) plus what routing needs.
 */
export function listOperations(doc: OpenApiDocument): SpecOperation[] {
  const document = doc as ValidatorDocument;
  return collectOperations(document)
    .filter((op) => op.kind === 'path')
    .map((op) => {
      const node = op.node as Record<string, unknown>;
      const responses: Record<string, Record<string, unknown>> = {};
      for (const [status, response] of Object.entries((node.responses as Record<string, unknown>) ?? {})) {
        responses[status] = resolveLocal(document, { node: response, pointer: '' }).node;
      }
      const success = Object.keys(responses)
        .filter((status) => /^2\d\d$/.test(status))
        .map(Number)
        .sort((a, b) => a - b)[0];
      if (success === undefined) throw new Error(`${op.operationId} documents no 2xx response`);
      const body = node.requestBody
        ? resolveLocal<{ required?: boolean; content?: Record<string, { schema?: unknown }> }>(document, {
            node: node.requestBody,
            pointer: '',
          }).node
        : undefined;
      return {
        operationId: op.operationId,
        method: op.method.toUpperCase(),
        path: op.path,
        parameters: op.parameters.map(({ node: p }) => ({
          ...(p as unknown as SpecParameter),
          required: Boolean(p.required),
        })),
        requestBody: body ? { required: Boolean(body.required), content: body.content ?? {} } : undefined,
        responses,
        security: op.security,
        successStatus: success,
        internal: op.internal,
      };
    });
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
