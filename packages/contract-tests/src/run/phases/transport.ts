// The transport phase: what generic HTTP clients do that a spec does not spell out. Each check and its
// rule are in checks.ts; here are the probes, each made from the operation's valid base request (the
// spec's examples).
import type { Operation } from '@platform-api/validator';
import type { CallOptions, SentRequest } from '../../client.js';
import type { CheckName } from '../checks.js';
import { CreatedResources } from '../links.js';
import { baseRequest } from '../requests.js';
import type { Session } from '../session.js';
import { scopeEnforcement } from './scopes.js';

export interface TransportOptions {
  /** Size of the body the oversized_body check sends (default 4 MiB). */
  oversizedBodyBytes?: number;
}

const PROBED_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];

/**
 * A transport check of one operation, sent from its valid request (`base`, as `request` once prepared);
 * it returns where its check does not apply to the operation.
 */
type OperationProbe = (
  session: Session,
  operation: Operation,
  request: SentRequest,
  options: Required<TransportOptions>,
  base: CallOptions,
) => Promise<void>;

/** The transport checks of an operation, each its probe, in the order they are sent. */
const OPERATION_PROBES: ReadonlyArray<[CheckName, OperationProbe]> = [
  ['ignored_auth', ignoredAuth],
  [
    'scope_enforcement',
    (session, operation, _request, _options, base) => scopeEnforcement(session, operation, base),
  ],
  ['auth_scheme_case', authSchemeCase],
  ['head_matches_get', headMatchesGet],
  ['trailing_slash', trailingSlash],
  ['repeated_query_parameters', repeatedQuery],
  ['integer_spelling', integerSpelling],
  ['empty_json_body', emptyJsonBody],
  ['missing_required_header', missingRequiredHeader],
  ['unsupported_media_type', withCredentialsForBody('unsupported_media_type', unsupportedMediaType)],
  ['oversized_body', withCredentialsForBody('oversized_body', oversizedBody)],
];

export async function transportPhase(session: Session, options: TransportOptions = {}): Promise<void> {
  const settings = { oversizedBodyBytes: options.oversizedBodyBytes ?? 4 * 1024 * 1024 };
  // An operation that names a resource is probed on one the run made, where the spec's links lead there:
  // an example id no real server has answers 404 whatever the credentials.
  const resources = new CreatedResources(session);
  for (const operation of session.operations) {
    const base = (await resources.requestFor(operation)) ?? baseOf(session, operation);
    const request = await session.client.prepare(operation, base);
    for (const [check, probe] of OPERATION_PROBES)
      if (session.enabled(check)) await probe(session, operation, request, settings, base);
  }
  if (session.enabled('unsupported_method') || session.enabled('allow_header_conformance'))
    await unsupportedMethods(session);
}

const baseOf = (session: Session, operation: Operation) =>
  baseRequest(session.validator, operation, session.seed, session.text);

/**
 * A probe of what an operation does with a body. Without credentials for the operation its 401 comes
 * first, and what the body would get is unknowable: the check is skipped with that reason.
 */
function withCredentialsForBody(check: CheckName, probe: OperationProbe): OperationProbe {
  return async (session, operation, request, options, base) => {
    if (!operation.requestBody) return;
    const anonymous = await session.client.prepare(operation, { ...base, authenticate: false });
    const unauthenticated =
      requiresCredentials(operation) &&
      Object.keys(anonymous.headers).length === Object.keys(request.headers).length;
    if (unauthenticated) session.skip(check, operation.operationId, 'no credentials for this operation');
    else await probe(session, operation, request, options, base);
  };
}

/** Sends a check's probe and judges it by the check's rule. */
async function judgeProbe(session: Session, check: CheckName, operation: Operation, request: SentRequest) {
  session.judge(check, await session.exchange(check, operation, request));
}

const requiresCredentials = (operation: Operation) =>
  operation.security.length > 0 &&
  operation.security.every((requirement) => Object.keys(requirement).length > 0);

async function ignoredAuth(
  session: Session,
  operation: Operation,
  request: SentRequest,
  _options: Required<TransportOptions>,
  base: CallOptions,
): Promise<void> {
  if (!requiresCredentials(operation)) return;
  const anonymous = await session.call(operation, { ...base, authenticate: false });
  session.checkResponse(anonymous);
  session.judge('ignored_auth', { operation, request: anonymous.request, answer: anonymous });
  const authorization = request.headers.authorization;
  if (!authorization) return;
  const [scheme, credentials = ''] = authorization.split(' ');
  // Basic: the run's own user or client with a wrong secret — what a leaked name without its secret gives.
  const user = Buffer.from(credentials, 'base64').toString('utf8').split(':')[0] || 'not-a-client';
  const wrong =
    scheme?.toLowerCase() === 'basic'
      ? `${scheme} ${Buffer.from(`${user}:not-its-secret-${session.runId}`).toString('base64')}`
      : `${scheme} not-a-valid-token-${session.runId}`;
  await judgeProbe(session, 'ignored_auth', operation, {
    ...request,
    headers: { ...request.headers, authorization: wrong },
  });
}

async function authSchemeCase(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  const authorization = request.headers.authorization;
  if (operation.method !== 'get' || !authorization) return;
  const [scheme = '', ...rest] = authorization.split(' ');
  for (const variant of [scheme.toLowerCase(), scheme.toUpperCase()]) {
    if (variant === scheme) continue;
    await judgeProbe(session, 'auth_scheme_case', operation, {
      ...request,
      headers: { ...request.headers, authorization: [variant, ...rest].join(' ') },
    });
  }
}

async function headMatchesGet(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (operation.method !== 'get') return;
  await judgeProbe(session, 'head_matches_get', operation, { ...request, method: 'HEAD' });
}

async function trailingSlash(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (operation.method !== 'get' || operation.path.endsWith('/')) return;
  const url = new URL(request.url);
  url.pathname = `${url.pathname}/`;
  await judgeProbe(session, 'trailing_slash', operation, { ...request, url: url.toString() });
}

async function repeatedQuery(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (operation.method !== 'get') return;
  const url = new URL(request.url);
  const single = operation.parameters.find((parameter) => {
    if (parameter.node.in !== 'query' || !url.searchParams.has(parameter.node.name)) return false;
    const schema = session.validator.resolve({ node: parameter.node.schema ?? {}, pointer: '' }).node;
    return schema.type !== 'array';
  });
  const value = single && url.searchParams.get(single.node.name);
  if (!single || value === null || value === undefined) return;
  url.searchParams.append(single.node.name, value);
  await judgeProbe(session, 'repeated_query_parameters', operation, { ...request, url: url.toString() });
}

/**
 * Each integer path parameter of a read, its decimal value respelled as lenient number parsers read it:
 * with a sign (`Number()`, Ajv's coercion), in hexadecimal (`Number()`), with text after it (`parseInt`).
 */
async function integerSpelling(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (operation.method !== 'get') return;
  const url = new URL(request.url);
  const segments = url.pathname.split('/');
  const template = operation.path.split('/');
  for (const parameter of operation.parameters) {
    if (parameter.node.in !== 'path') continue;
    const schema = session.validator.resolve({ node: parameter.node.schema ?? {}, pointer: '' }).node;
    const inTemplate = template.indexOf(`{${parameter.node.name}}`);
    // Counted from the end: the base URL may put a prefix before the spec's paths (`/wp-json`).
    const index = segments.length - template.length + inTemplate;
    const value = segments[index];
    if (schema.type !== 'integer' || inTemplate < 0 || value === undefined || !/^[0-9]+$/.test(value))
      continue;
    for (const spelling of [`+${value}`, `0x${BigInt(value).toString(16)}`, `${value}abc`]) {
      const respelled = new URL(url);
      respelled.pathname = segments.with(index, encodeURIComponent(spelling)).join('/');
      await judgeProbe(session, 'integer_spelling', operation, { ...request, url: respelled.toString() });
    }
  }
}

async function emptyJsonBody(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (operation.requestBody || !['get', 'delete'].includes(operation.method)) return;
  // With the header first (the check's reference, without it, comes after): if that call does what the
  // operation does (a delete), the plain one answers what a repeat answers (404), which is still not
  // "malformed".
  await judgeProbe(session, 'empty_json_body', operation, {
    ...request,
    headers: { ...request.headers, 'content-type': 'application/json' },
    body: '',
  });
}

async function unsupportedMediaType(
  session: Session,
  operation: Operation,
  request: SentRequest,
): Promise<void> {
  if (!('415' in operation.responses)) return;
  if (Object.keys(operation.requestBody?.content ?? {}).some((type) => type.includes('xml'))) return;
  await judgeProbe(session, 'unsupported_media_type', operation, {
    ...request,
    headers: { ...request.headers, 'content-type': 'application/xml' },
    body: '<request/>',
  });
}

async function oversizedBody(
  session: Session,
  operation: Operation,
  request: SentRequest,
  { oversizedBodyBytes: bytes }: Required<TransportOptions>,
): Promise<void> {
  if (!('413' in operation.responses)) return;
  const jsonType = Object.keys(operation.requestBody?.content ?? {}).find((type) => type.includes('json'));
  if (!jsonType) return;
  const body = `{"padding":"${'x'.repeat(Math.max(0, bytes - 15))}"}`;
  await judgeProbe(session, 'oversized_body', operation, {
    ...request,
    headers: { ...request.headers, 'content-type': jsonType },
    body,
  });
}

async function missingRequiredHeader(
  session: Session,
  operation: Operation,
  request: SentRequest,
): Promise<void> {
  const required = operation.parameters
    .map((parameter) => parameter.node)
    .filter((parameter) => parameter.in === 'header' && parameter.required === true);
  for (const parameter of required) {
    const { [String(parameter.name).toLowerCase()]: _, ...headers } = request.headers;
    await judgeProbe(session, 'missing_required_header', operation, { ...request, headers });
  }
}

/** unsupported_method and allow_header_conformance: the methods a documented path lacks, once per path. */
async function unsupportedMethods(session: Session): Promise<void> {
  const byPath = new Map<string, Operation>();
  for (const operation of session.operations)
    if (!byPath.has(operation.path)) byPath.set(operation.path, operation);
  // Documented methods come from the whole spec, not only the operations in scope.
  const documented = (path: string) =>
    session.validator.operations
      .filter((operation) => operation.kind === 'path' && operation.path === path)
      .map((operation) => operation.method.toUpperCase());
  for (const [path, first] of byPath) {
    const request = await session.client.prepare(first, baseOf(session, first));
    const methods = documented(path);
    for (const method of PROBED_METHODS.filter((candidate) => !methods.includes(candidate))) {
      const evidence = await session.exchange('unsupported_method', first, {
        ...request,
        method,
        body: undefined,
      });
      session.judge('unsupported_method', evidence);
      if (evidence.answer.status === 405) session.judge('allow_header_conformance', evidence);
    }
  }
}
