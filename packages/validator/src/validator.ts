// The one response validator of this repository: compiled from a bundled OpenAPI 3.1 document with
// Ajv for JSON Schema 2020-12 plus formats. It answers, for one response, the questions the contract
// suite asks (named after Schemathesis' checks): is the status documented, is the content type
// documented, do the documented headers match, does the body match its schema.
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { createSpecAjv, SPEC_ID } from './ajv.js';
import { closestBranchErrors, type SchemaAccess } from './branches.js';
import {
  getByPointer,
  HTTP_METHODS,
  type HttpMethod,
  isObject,
  type JsonObject,
  joinPointer,
  type Located,
  type OpenApiDocument,
  resolveLocal,
} from './openapi.js';

export type Check =
  | 'not_a_server_error'
  | 'status_code_conformance'
  | 'content_type_conformance'
  | 'response_headers_conformance'
  | 'response_schema_conformance'
  | 'request_headers_conformance'
  | 'request_body_conformance';

export interface Problem {
  check: Check;
  message: string;
}

/** A Parameter Object (references followed). */
export interface ParameterObject extends JsonObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: unknown;
}

export interface MediaTypeObject extends JsonObject {
  schema?: unknown;
}

export interface Operation {
  /** `paths` or `webhooks`. */
  kind: 'path' | 'webhook';
  method: HttpMethod;
  /** The path template (`/v1/users/{id}`) or the webhook name. */
  path: string;
  operationId: string;
  pointer: string;
  node: JsonObject;
  /** Path-level and operation-level parameters merged (the operation's win). */
  parameters: Located<ParameterObject>[];
  /** The Request Body Object, references followed. */
  requestBody: { required: boolean; content: Record<string, MediaTypeObject>; pointer: string } | undefined;
  /** Status (or `4XX`, `default`) → Response Object, references followed. */
  responses: Record<string, JsonObject>;
  /** The lowest 2xx status documented: what a successful call answers. */
  successStatus: number | undefined;
  /** Scheme name → scopes, per alternative; `{}` means no authentication. */
  security: Array<Record<string, string[]>>;
  internal: boolean;
  deprecated: boolean;
}

/** A request as received, e.g. a webhook delivery checked against the spec's `webhooks`. */
export interface RequestToCheck {
  headers: Headers;
  body: string;
}

export interface ResponseToCheck {
  status: number;
  headers: Headers;
  /** The body as received (text); parsed here according to the content type. */
  body: string;
}

export class SpecValidator {
  readonly document: OpenApiDocument;
  readonly operations: Operation[];
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly byOperationId = new Map<string, Operation>();
  private readonly routes = new Map<string, Array<{ operation: Operation; pattern: RegExp }>>();

  constructor(document: OpenApiDocument) {
    this.document = document;
    this.ajv = createSpecAjv(document);
    this.operations = collectOperations(document);
    for (const operation of this.operations) this.byOperationId.set(operation.operationId, operation);
    // Each method's path operations, literal segments before templated ones (compiled once).
    for (const operation of this.operations) {
      if (operation.kind !== 'path') continue;
      const routes = this.routes.get(operation.method) ?? [];
      routes.push({ operation, pattern: templateToRegExp(operation.path) });
      this.routes.set(operation.method, routes);
    }
    for (const routes of this.routes.values())
      routes.sort((a, b) => templatedSegments(a.operation.path) - templatedSegments(b.operation.path));
  }

  operation(operationId: string): Operation {
    const operation = this.byOperationId.get(operationId);
    if (!operation) throw new Error(`No operation ${operationId} in the spec`);
    return operation;
  }

  /** Finds the operation a concrete request path matches (literal segments win over templated ones). */
  findOperation(method: string, path: string): Operation | undefined {
    const pathname = path.split('?')[0] ?? path;
    const routes = this.routes.get(method.toLowerCase()) ?? [];
    return routes.find((route) => route.pattern.test(pathname))?.operation;
  }

  /**
   * Validates a value against the schema at a JSON pointer in the document. Where an `anyOf`/`oneOf`
   * fails, only the errors of the branch the value came closest to are reported (branches.ts).
   */
  validateAt(pointer: string, value: unknown): string[] {
    const validate = this.compile(pointer);
    if (validate(value)) return [];
    const errors = [...(validate.errors ?? [])];
    let closest: ErrorObject[] = [];
    try {
      closest = closestBranchErrors(this.schemas, pointer, value, errors);
    } catch {
      // A schema the branch walk cannot read: Ajv's own errors still say what is wrong.
    }
    return formatErrors(closest.length > 0 ? closest : errors);
  }

  private compile(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      const found = this.ajv.getSchema(`${SPEC_ID}${pointer}`);
      if (!found) throw new Error(`No schema at ${pointer}`);
      validate = found;
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  private readonly schemas: SchemaAccess = {
    compile: (pointer) => this.compile(pointer),
    resolve: (located) => this.resolve(located),
    at: (pointer) => this.resolve({ node: getByPointer(this.document, pointer), pointer }),
  };

  /** Resolves a local `$ref` node within this document. */
  resolve<T = JsonObject>(located: Located<unknown>): Located<T> {
    return resolveLocal<T>(this.document, located);
  }

  /** Checks one response of an operation against everything the spec documents for it. */
  validateResponse(operation: Operation, response: ResponseToCheck): Problem[] {
    const problems: Problem[] = [];
    const label = `${operation.operationId} → ${response.status}`;
    const responses = this.resolve({
      node: operation.node.responses ?? {},
      pointer: joinPointer(operation.pointer, 'responses'),
    });
    const statusKey = documentedStatusKey(responses.node, response.status);

    if (response.status >= 500 && (response.status === 500 || statusKey === undefined)) {
      problems.push({
        check: 'not_a_server_error',
        message: `${label}: server error, body ${truncate(response.body)}`,
      });
    }
    if (statusKey === undefined) {
      problems.push({
        check: 'status_code_conformance',
        message: `${label}: status not documented (documented: ${Object.keys(responses.node).join(', ')}); body ${truncate(response.body)}`,
      });
      return problems;
    }

    const documented = this.resolve({
      node: responses.node[statusKey],
      pointer: joinPointer(responses.pointer, statusKey),
    });
    problems.push(...this.checkHeaders(label, documented, response.headers));

    const content = documented.node.content;
    if (!isObject(content) || Object.keys(content).length === 0) {
      if (response.body.trim() !== '') {
        problems.push({
          check: 'content_type_conformance',
          message: `${label}: the spec documents no body, got ${truncate(response.body)}`,
        });
      }
      return problems;
    }

    const contentType = response.headers.get('content-type') ?? '';
    const mediaType = matchMediaType(Object.keys(content), contentType);
    if (mediaType === undefined) {
      problems.push({
        check: 'content_type_conformance',
        message: `${label}: content type "${contentType}" not documented (documented: ${Object.keys(content).join(', ')})`,
      });
      return problems;
    }
    const media = content[mediaType];
    if (!isObject(media) || media.schema === undefined) return problems;
    const schemaPointer = joinPointer(documented.pointer, 'content', mediaType, 'schema');

    let value: unknown = response.body;
    if (isJsonMediaType(mediaType)) {
      try {
        value = JSON.parse(response.body);
      } catch {
        problems.push({
          check: 'response_schema_conformance',
          message: `${label}: body is not JSON: ${truncate(response.body)}`,
        });
        return problems;
      }
    }
    for (const error of this.validateAt(schemaPointer, value)) {
      problems.push({ check: 'response_schema_conformance', message: `${label}: ${error}` });
    }
    return problems;
  }

  /**
   * Checks a request against an operation: its header parameters, its content type and its body.
   * Used for what a server sends (webhooks), where the spec is the contract for the request.
   */
  validateRequest(operation: Operation, request: RequestToCheck): Problem[] {
    const problems: Problem[] = [];
    const label = operation.operationId;
    for (const parameter of operation.parameters) {
      if (parameter.node.in !== 'header') continue;
      const name = String(parameter.node.name);
      const value = request.headers.get(name);
      if (value === null) {
        if (parameter.node.required === true) {
          problems.push({
            check: 'request_headers_conformance',
            message: `${label}: required header ${name} missing`,
          });
        }
        continue;
      }
      if (parameter.node.schema === undefined) continue;
      const schemaPointer = joinPointer(parameter.pointer, 'schema');
      for (const error of this.validateHeaderValue(schemaPointer, parameter.node.schema, value)) {
        problems.push({
          check: 'request_headers_conformance',
          message: `${label}: header ${name}="${value}" ${error}`,
        });
      }
    }
    const body = operation.requestBody;
    if (body === undefined) return problems;
    const { content } = body;
    const contentType = request.headers.get('content-type') ?? '';
    const mediaType = matchMediaType(Object.keys(content), contentType);
    if (mediaType === undefined) {
      problems.push({
        check: 'request_body_conformance',
        message: `${label}: content type "${contentType}" not documented`,
      });
      return problems;
    }
    let value: unknown = request.body;
    if (isJsonMediaType(mediaType)) {
      try {
        value = JSON.parse(request.body);
      } catch {
        problems.push({
          check: 'request_body_conformance',
          message: `${label}: body is not JSON: ${truncate(request.body)}`,
        });
        return problems;
      }
    }
    for (const error of this.validateAt(joinPointer(body.pointer, 'content', mediaType, 'schema'), value)) {
      problems.push({ check: 'request_body_conformance', message: `${label}: ${error}` });
    }
    return problems;
  }

  /** Header values arrive as text: numbers are compared as numbers when the schema says so. */
  private validateHeaderValue(schemaPointer: string, schemaNode: unknown, value: string): string[] {
    const schema = this.resolve({ node: schemaNode, pointer: schemaPointer }).node;
    const numeric = schema.type === 'integer' || schema.type === 'number';
    return this.validateAt(schemaPointer, numeric && value.trim() !== '' ? Number(value) : value);
  }

  private checkHeaders(label: string, response: Located, headers: Headers): Problem[] {
    const problems: Problem[] = [];
    const documented = response.node.headers;
    if (!isObject(documented)) return problems;
    for (const [name, raw] of Object.entries(documented)) {
      if (name.toLowerCase() === 'content-type') continue;
      const header = this.resolve({ node: raw, pointer: joinPointer(response.pointer, 'headers', name) });
      const value = headers.get(name);
      if (value === null) {
        if (header.node.required === true) {
          problems.push({
            check: 'response_headers_conformance',
            message: `${label}: required header ${name} missing`,
          });
        }
        continue;
      }
      if (header.node.schema === undefined) continue;
      for (const error of this.validateHeaderValue(
        joinPointer(header.pointer, 'schema'),
        header.node.schema,
        value,
      )) {
        problems.push({
          check: 'response_headers_conformance',
          message: `${label}: header ${name}="${value}" ${error}`,
        });
      }
    }
    return problems;
  }
}

/** Every operation of `paths` and `webhooks`, path-level parameters merged, Reference Objects followed. */
export function collectOperations(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  const rootSecurity = (document.security as Operation['security'] | undefined) ?? [];
  for (const kind of ['path', 'webhook'] as const) {
    const container = kind === 'path' ? document.paths : document.webhooks;
    const containerPointer = kind === 'path' ? '#/paths' : '#/webhooks';
    for (const [path, rawItem] of Object.entries(container ?? {})) {
      const item = resolveLocal(document, { node: rawItem, pointer: joinPointer(containerPointer, path) });
      const shared = Array.isArray(item.node.parameters) ? item.node.parameters : [];
      for (const method of HTTP_METHODS) {
        const node = item.node[method];
        if (!isObject(node)) continue;
        const pointer = joinPointer(item.pointer, method);
        const own = Array.isArray(node.parameters) ? node.parameters : [];
        const parameters = mergeParameters(document, [
          ...shared.map((p, i) => ({ node: p, pointer: joinPointer(item.pointer, 'parameters', String(i)) })),
          ...own.map((p, i) => ({ node: p, pointer: joinPointer(pointer, 'parameters', String(i)) })),
        ]);
        const responses: Record<string, JsonObject> = {};
        const responsesPointer = joinPointer(pointer, 'responses');
        for (const [status, response] of Object.entries(isObject(node.responses) ? node.responses : {})) {
          responses[status] = resolveLocal(document, {
            node: response,
            pointer: joinPointer(responsesPointer, status),
          }).node;
        }
        const successStatus = Object.keys(responses)
          .filter((status) => /^2\d\d$/.test(status))
          .map(Number)
          .sort((a, b) => a - b)[0];
        const body =
          node.requestBody === undefined
            ? undefined
            : resolveLocal(document, {
                node: node.requestBody,
                pointer: joinPointer(pointer, 'requestBody'),
              });
        operations.push({
          kind,
          method,
          path,
          operationId: typeof node.operationId === 'string' ? node.operationId : `${method} ${path}`,
          pointer,
          node,
          parameters,
          requestBody: body && {
            required: body.node.required === true,
            content: (isObject(body.node.content) ? body.node.content : {}) as Record<
              string,
              MediaTypeObject
            >,
            pointer: body.pointer,
          },
          responses,
          successStatus,
          security: (node.security as Operation['security'] | undefined) ?? rootSecurity,
          internal: node['x-internal'] === true,
          deprecated: node.deprecated === true,
        });
      }
    }
  }
  return operations;
}

/** Operation-level parameters override path-level ones with the same name and location. */
function mergeParameters(document: OpenApiDocument, located: Located<unknown>[]): Located<ParameterObject>[] {
  const byKey = new Map<string, Located<ParameterObject>>();
  for (const entry of located) {
    const parameter = resolveLocal<ParameterObject>(document, entry);
    byKey.set(`${parameter.node.in}:${parameter.node.name}`, parameter);
  }
  return [...byKey.values()];
}

function documentedStatusKey(responses: JsonObject, status: number): string | undefined {
  const exact = String(status);
  if (exact in responses) return exact;
  const range = `${exact[0]}XX`;
  if (range in responses) return range;
  if ('default' in responses) return 'default';
  return undefined;
}

// The documented media type a Content-Type falls under: exact (parameters and case aside), then a
// `type/*` range, then `*/*`.
export function matchMediaType(documented: string[], contentType: string): string | undefined {
  const actual = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (actual === '') return undefined;
  const [type] = actual.split('/');
  return (
    documented.find((key) => key.toLowerCase() === actual) ??
    documented.find((key) => key.toLowerCase() === `${type}/*`) ??
    documented.find((key) => key === '*/*')
  );
}

export function isJsonMediaType(mediaType: string): boolean {
  const base = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  return base === 'application/json' || base.endsWith('+json');
}

export function templateToRegExp(template: string): RegExp {
  const pattern = template
    .split('/')
    .map((segment) =>
      segment
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join(''),
    )
    .join('/');
  return new RegExp(`^${pattern}/?$`);
}

function templatedSegments(template: string): number {
  return (template.match(/\{/g) ?? []).length;
}

function formatErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const where = error.instancePath === '' ? 'body' : error.instancePath;
    const params = Object.keys(error.params).length > 0 ? ` ${JSON.stringify(error.params)}` : '';
    return `${where} ${error.message ?? 'is invalid'}${params}`;
  });
}

function truncate(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
