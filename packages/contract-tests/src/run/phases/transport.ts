// The transport phase: what generic HTTP clients do that a spec does not spell out. Each check is named
// in checks.ts; each probe starts from the operation's valid base request (the spec's examples).
import type { Operation } from '@platform-api/validator';
import type { Answer, SentRequest } from '../../client.js';
import type { CheckName } from '../checks.js';
import { baseRequest } from '../requests.js';
import type { Session } from '../session.js';
import { allowProblem, headProblem, isClientError, isSuccess } from '../verdicts.js';

export interface TransportOptions {
  /** Size of the body the oversized_body check sends (default 4 MiB). */
  oversizedBodyBytes?: number;
}

const PROBED_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];

/**
 * A transport check of one operation, sent from its valid request; it returns where its check does not
 * apply to the operation.
 */
type OperationProbe = (
  session: Session,
  operation: Operation,
  request: SentRequest,
  options: Required<TransportOptions>,
) => Promise<void>;

/** The transport checks of an operation, each its probe, in the order they are sent. */
const OPERATION_PROBES: ReadonlyArray<[CheckName, OperationProbe]> = [
  ['ignored_auth', ignoredAuth],
  ['auth_scheme_case', authSchemeCase],
  ['head_matches_get', headMatchesGet],
  ['trailing_slash', trailingSlash],
  ['repeated_query_parameters', repeatedQuery],
  ['empty_json_body', emptyJsonBody],
  ['missing_required_header', missingRequiredHeader],
  ['unsupported_media_type', withCredentialsForBody('unsupported_media_type', unsupportedMediaType)],
  ['oversized_body', withCredentialsForBody('oversized_body', oversizedBody)],
];

export async function transportPhase(session: Session, options: TransportOptions = {}): Promise<void> {
  const settings = { oversizedBodyBytes: options.oversizedBodyBytes ?? 4 * 1024 * 1024 };
  for (const operation of session.operations) {
    const request = await session.client.prepare(operation, baseOf(session, operation));
    for (const [check, probe] of OPERATION_PROBES)
      if (session.enabled(check)) await probe(session, operation, request, settings);
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
  return async (session, operation, request, options) => {
    if (!operation.requestBody) return;
    const anonymous = await session.client.prepare(operation, {
      ...baseOf(session, operation),
      authenticate: false,
    });
    const unauthenticated =
      requiresCredentials(operation) &&
      Object.keys(anonymous.headers).length === Object.keys(request.headers).length;
    if (unauthenticated) session.skip(check, operation.operationId, 'no credentials for this operation');
    else await probe(session, operation, request, options);
  };
}

function verdict(
  session: Session,
  check: CheckName,
  operation: Operation,
  request: SentRequest,
  answer: Answer,
  problem: string | undefined,
): void {
  if (!session.enabled(check)) return;
  if (problem) session.fail(check, operation, problem, { request, answer });
  else session.pass(check, operation);
}

const requiresCredentials = (operation: Operation) =>
  operation.security.length > 0 &&
  operation.security.every((requirement) => Object.keys(requirement).length > 0);

async function ignoredAuth(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (!requiresCredentials(operation)) return;
  const anonymous = await session.call(operation, { ...baseOf(session, operation), authenticate: false });
  session.checkResponse(anonymous);
  verdict(
    session,
    'ignored_auth',
    operation,
    anonymous.request,
    anonymous,
    isSuccess(anonymous.status) ? `answered ${anonymous.status} without credentials` : undefined,
  );
  const authorization = request.headers.authorization;
  if (!authorization) return;
  const [scheme, credentials = ''] = authorization.split(' ');
  // Basic: the run's own user or client with a wrong secret — what a leaked name without its secret gives.
  const user = Buffer.from(credentials, 'base64').toString('utf8').split(':')[0] || 'not-a-client';
  const wrong =
    scheme?.toLowerCase() === 'basic'
      ? `${scheme} ${Buffer.from(`${user}:not-its-secret-${session.runId}`).toString('base64')}`
      : `${scheme} not-a-valid-token-${session.runId}`;
  const forged = { ...request, headers: { ...request.headers, authorization: wrong } };
  const answer = await session.send(operation, forged);
  verdict(
    session,
    'ignored_auth',
    operation,
    forged,
    answer,
    isSuccess(answer.status) ? `answered ${answer.status} with a wrong ${scheme} credential` : undefined,
  );
}

async function authSchemeCase(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  const authorization = request.headers.authorization;
  if (operation.method !== 'get' || !authorization) return;
  const reference = await session.send(operation, request);
  const [scheme, ...rest] = authorization.split(' ');
  for (const variant of [scheme!.toLowerCase(), scheme!.toUpperCase()]) {
    if (variant === scheme) continue;
    const probe = {
      ...request,
      headers: { ...request.headers, authorization: [variant, ...rest].join(' ') },
    };
    const answer = await session.send(operation, probe);
    verdict(
      session,
      'auth_scheme_case',
      operation,
      probe,
      answer,
      answer.status === 401 && reference.status !== 401
        ? `the scheme "${variant}" was refused (401) where "${scheme}" was accepted (${reference.status})`
        : undefined,
    );
  }
}

async function headMatchesGet(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (operation.method !== 'get') return;
  const get = await session.send(operation, request);
  const probe = { ...request, method: 'HEAD' };
  const head = await session.send(operation, probe);
  verdict(session, 'head_matches_get', operation, probe, head, headProblem(head, get));
}

async function trailingSlash(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (operation.method !== 'get' || operation.path.endsWith('/')) return;
  const url = new URL(request.url);
  url.pathname = `${url.pathname}/`;
  const probe = { ...request, url: url.toString() };
  const answer = await session.send(operation, probe);
  let problem: string | undefined;
  if (answer.status >= 500) problem = `answered ${answer.status}`;
  else if (answer.status < 300) {
    const problems = session.validator.validateResponse(operation, {
      status: answer.status,
      headers: answer.headers,
      body: answer.text,
    });
    if (problems.length > 0) problem = `served, but not as documented: ${problems[0]!.message}`;
  }
  verdict(session, 'trailing_slash', operation, probe, answer, problem);
}

async function repeatedQuery(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (operation.method !== 'get') return;
  const url = new URL(request.url);
  const single = operation.parameters.find((parameter) => {
    if (parameter.node.in !== 'query' || !url.searchParams.has(parameter.node.name)) return false;
    const schema = session.validator.resolve({ node: parameter.node.schema ?? {}, pointer: '' }).node;
    return schema.type !== 'array';
  });
  if (!single) return;
  const name = single.node.name;
  url.searchParams.append(name, url.searchParams.get(name)!);
  const probe = { ...request, url: url.toString() };
  const answer = await session.send(operation, probe);
  verdict(
    session,
    'repeated_query_parameters',
    operation,
    probe,
    answer,
    answer.status >= 500 || (answer.status >= 300 && answer.status < 400)
      ? `?${name} twice was answered ${answer.status}`
      : undefined,
  );
}

async function emptyJsonBody(session: Session, operation: Operation, request: SentRequest): Promise<void> {
  if (operation.requestBody || !['get', 'delete'].includes(operation.method)) return;
  // With the header first: if that call does what the operation does (a delete), the plain one after it
  // answers what a repeat answers (404), which is still not "malformed".
  const probe = { ...request, headers: { ...request.headers, 'content-type': 'application/json' }, body: '' };
  const withHeader = await session.send(operation, probe);
  const plain = await session.send(operation, request);
  const malformed = (status: number) => status === 400 || status === 415;
  verdict(
    session,
    'empty_json_body',
    operation,
    probe,
    withHeader,
    malformed(withHeader.status) && !malformed(plain.status)
      ? `an empty body with Content-Type: application/json was refused (${withHeader.status}); without the header the answer is ${plain.status}`
      : undefined,
  );
}

async function unsupportedMediaType(
  session: Session,
  operation: Operation,
  request: SentRequest,
): Promise<void> {
  if (!('415' in operation.responses)) return;
  if (Object.keys(operation.requestBody?.content ?? {}).some((type) => type.includes('xml'))) return;
  const probe = {
    ...request,
    headers: { ...request.headers, 'content-type': 'application/xml' },
    body: '<request/>',
  };
  const answer = await session.send(operation, probe);
  verdict(
    session,
    'unsupported_media_type',
    operation,
    probe,
    answer,
    answer.status === 415 ? undefined : `an application/xml body was answered ${answer.status}`,
  );
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
  const probe = { ...request, headers: { ...request.headers, 'content-type': jsonType }, body };
  const answer = await session.send(operation, probe);
  verdict(
    session,
    'oversized_body',
    operation,
    probe,
    answer,
    answer.status === 413 ? undefined : `a body of ${bytes} bytes was answered ${answer.status}`,
  );
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
    const name = String(parameter.name).toLowerCase();
    const headers = { ...request.headers };
    delete headers[name];
    const probe = { ...request, headers };
    const answer = await session.send(operation, probe);
    verdict(
      session,
      'missing_required_header',
      operation,
      probe,
      answer,
      isClientError(answer.status)
        ? undefined
        : `without its required header ${parameter.name} the request was answered ${answer.status}`,
    );
  }
}

/** unsupported_method and allow_header_conformance: the methods a documented path lacks, once per path. */
async function unsupportedMethods(session: Session): Promise<void> {
  const byPath = new Map<string, Operation[]>();
  for (const operation of session.operations) {
    byPath.set(operation.path, [...(byPath.get(operation.path) ?? []), operation]);
  }
  // Documented methods come from the whole spec, not only the operations in scope.
  const documented = (path: string) =>
    session.validator.operations
      .filter((operation) => operation.kind === 'path' && operation.path === path)
      .map((operation) => operation.method.toUpperCase());
  for (const [path, operations] of byPath) {
    const first = operations[0]!;
    const request = await session.client.prepare(
      first,
      baseRequest(session.validator, first, session.seed, session.text),
    );
    const methods = documented(path);
    for (const method of PROBED_METHODS.filter((candidate) => !methods.includes(candidate))) {
      const probe = { ...request, method, body: undefined };
      const answer = await session.send(first, probe);
      verdict(
        session,
        'unsupported_method',
        first,
        probe,
        answer,
        answer.status === 405 ? undefined : `${method} ${path} (undocumented) was answered ${answer.status}`,
      );
      if (answer.status === 405)
        verdict(
          session,
          'allow_header_conformance',
          first,
          probe,
          answer,
          allowProblem(answer, methods, method),
        );
    }
  }
}
