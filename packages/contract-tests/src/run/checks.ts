// The named checks of a contract run (named after Schemathesis' where it has one), each one object: its
// name, what it asserts, and the rule that judges an answer. The run's phases and `replay` judge by the
// same rule, so a failure sent again is judged exactly as the run judged it.
import {
  isObject,
  type JsonObject,
  joinPointer,
  type Located,
  type Operation,
  type Problem,
  type SpecValidator,
} from '@platform-api/validator';
import type { Answer, CallResult, SentRequest } from '../client.js';

/** What a check judges: one answer to a request the suite sent, and what it is compared with. */
export interface Evidence {
  validator: SpecValidator;
  operation: Operation;
  request: SentRequest;
  answer: Answer;
  /** The answer to the check's reference request, for a check that compares two answers. */
  reference?: Answer;
  /** Sent as another tenant than the one that owns what the request names (tenant_isolation). */
  otherTenant?: boolean;
}

interface CheckDefinition {
  name: string;
  description: string;
  /**
   * For a check that compares two answers: the request whose answer the probe's is compared with, sent
   * right after the probe.
   */
  reference?: (probe: SentRequest) => SentRequest;
  /**
   * What is wrong with the answer, one line a problem; none when the check holds. Absent where what is
   * judged is no answer to a request the suite sent (webhook deliveries, site scenarios) or the run's own
   * budget (max_response_time): such a failure cannot be replayed.
   */
  judge?: (evidence: Evidence) => string[];
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/** A refusal: what a request breaking the schema (or a required header, or JSON itself) must get. */
const isClientError = (status: number) => status >= 400 && status < 500;

/** The statuses that say "your request is malformed": a schema-valid request must not get them. */
export const MALFORMED_REQUEST = new Set([400, 415, 422]);

/** A problem when `failed`, else none. */
const problemIf = (failed: boolean, problem: string): string[] => (failed ? [problem] : []);

const validated = new WeakMap<Answer, Problem[]>();

/** The validator's problems with an answer, computed once per answer (the client's, for a call). */
function responseProblems({ validator, operation, answer }: Evidence): Problem[] {
  const call = answer as Partial<CallResult>;
  if (call.problems && call.operation === operation) return call.problems;
  let problems = validated.get(answer);
  if (!problems) {
    problems = validator.validateResponse(operation, {
      status: answer.status,
      headers: answer.headers,
      body: answer.text,
    });
    validated.set(answer, problems);
  }
  return problems;
}

function responseCheck(name: string): (evidence: Evidence) => string[] {
  return (evidence) =>
    responseProblems(evidence)
      .filter((problem) => problem.check === name)
      .map((problem) => problem.message);
}

const CHECK_LIST = [
  {
    name: 'not_a_server_error',
    description: 'No 5xx for any request, valid or not.',
    judge: responseCheck('not_a_server_error'),
  },
  {
    name: 'status_code_conformance',
    description: 'The status (or its 4XX range, or default) is documented for the operation.',
    judge: responseCheck('status_code_conformance'),
  },
  {
    name: 'content_type_conformance',
    description: 'The Content-Type is documented; no body where none is documented.',
    judge: responseCheck('content_type_conformance'),
  },
  {
    name: 'response_headers_conformance',
    description: 'Required response headers are present and match their schemas.',
    judge: responseCheck('response_headers_conformance'),
  },
  {
    name: 'response_schema_conformance',
    description: 'The body matches the documented schema.',
    judge: responseCheck('response_schema_conformance'),
  },
  {
    name: 'negative_data_rejection',
    description: 'A request that violates the schema is refused with a 4xx.',
    judge: ({ answer }) =>
      problemIf(
        !isClientError(answer.status),
        `a request that breaks the schema was answered ${answer.status}`,
      ),
  },
  {
    name: 'positive_data_acceptance',
    description: 'A schema-valid request is not refused as malformed (400, 415 or 422).',
    judge: ({ answer }) =>
      problemIf(
        MALFORMED_REQUEST.has(answer.status),
        `a schema-valid request was refused with ${answer.status}`,
      ),
  },
  {
    name: 'ignored_auth',
    description:
      'An operation that requires credentials refuses (no 2xx) a request without them and one with a wrong credential (a made-up bearer token; its own Basic user with a wrong secret), on a resource the run made where the spec links one.',
    judge: ({ request, answer }) => {
      const scheme = request.headers.authorization?.split(' ')[0];
      return problemIf(
        isSuccess(answer.status),
        scheme
          ? `answered ${answer.status} with a wrong ${scheme} credential`
          : `answered ${answer.status} without credentials`,
      );
    },
  },
  {
    name: 'ensure_resource_availability',
    description: 'A created resource can be read back through the links of its creation.',
    judge: ({ operation, answer }) =>
      problemIf(!isSuccess(answer.status), `${operation.operationId} answered ${answer.status}`),
  },
  {
    name: 'use_after_free',
    description: 'After a successful delete, reads answer 404/410 or the documented deleted form.',
    judge: (evidence) => {
      const { status } = evidence.answer;
      const gone = status === 404 || status === 410 || (isSuccess(status) && isDeletedForm(evidence));
      const answered = isSuccess(status)
        ? `${status} with a live resource`
        : described(evidence.answer, 'neither 404/410 nor the deleted form');
      return problemIf(!gone, `${evidence.operation.operationId} answered ${answered}`);
    },
  },
  {
    name: 'update_persisted',
    description:
      "After a create or change answered 2xx, the create's answer and a read of the item show every value its body sent (fields left out, or marked x-state: {ignored}, are not judged); CSV records written to fit the item (x-state: {records}) are taken and read back as written.",
  },
  {
    name: 'signing_secret',
    description:
      "A secret the spec declares made at create (x-state: {signingSecret: {when: FIELD}}) is in the create's answer exactly when FIELD was sent true, and in no read.",
  },
  {
    name: 'unique_conflict',
    description:
      'A second create reusing a value the spec marks unique (x-state: {unique}) answers the documented 409, in any letter case where case is ignored.',
  },
  {
    name: 'tenant_isolation',
    description: "Another tenant's client cannot read, change or delete a resource (403 or 404).",
    // The other tenant's own request must be refused; the owner's read after it must still find the
    // resource alive.
    judge: (evidence) => {
      const { operation, answer, otherTenant } = evidence;
      if (otherTenant)
        return problemIf(
          answer.status !== 403 && answer.status !== 404,
          `another tenant's ${operation.operationId} answered ${isSuccess(answer.status) ? answer.status : described(answer, 'neither 403 nor 404')}`,
        );
      const deleted = isSuccess(answer.status) && isDeletedForm(evidence);
      return problemIf(
        !isSuccess(answer.status) || deleted,
        `the owner's ${operation.operationId} answered ${deleted ? `${answer.status} with the deleted form` : described(answer, 'not the live resource')}`,
      );
    },
  },
  {
    name: 'pagination_semantics',
    description:
      'A paged list (limit/offset, per_page/page: read from its parameters) walked page by page lists each item once, no page beyond its size, and past its end an empty list or the status the spec declares (x-state: {pastEnd}).',
  },
  {
    name: 'created_listed',
    description:
      "While an item a create made exists, its collection (the GET on its path's parent), walked to its end, lists it.",
  },
  {
    name: 'listed_readable',
    description:
      "An item a paged list shows (the first and last of its first page) can be read by its id (the GET on the list's path and the id): 2xx.",
    judge: ({ operation, answer }) =>
      problemIf(
        !isSuccess(answer.status),
        `${operation.operationId} answered ${described(answer, 'not the listed item')}`,
      ),
  },
  {
    name: 'deleted_not_listed',
    description:
      "After a successful delete, the item's collection (the GET on its path's parent) no longer lists it, or lists it only in a form marked x-resource-deleted.",
  },
  {
    name: 'scope_enforcement',
    description:
      "A token of the run's own client asked for the run's other scopes only is refused (403, RFC 6750 insufficient_scope) by every operation that needs the scope it lacks.",
    judge: ({ operation, answer }) => {
      const scopes = [
        ...new Set(operation.security.flatMap((requirement) => Object.values(requirement).flat())),
      ];
      return problemIf(
        answer.status !== 403,
        `a token without the scope ${scopes.join(' or ')} was answered ${answer.status}`,
      );
    },
  },
  {
    name: 'auth_scheme_case',
    description: 'The HTTP auth scheme is accepted in any letter case (bearer, BEARER; RFC 9110 §11.1).',
    reference: (probe) => {
      const [scheme = '', ...rest] = (probe.headers.authorization ?? '').split(' ');
      return {
        ...probe,
        headers: { ...probe.headers, authorization: [canonicalScheme(scheme), ...rest].join(' ') },
      };
    },
    judge: ({ request, answer, reference }) => {
      const scheme = (request.headers.authorization ?? '').split(' ')[0] ?? '';
      return problemIf(
        answer.status === 401 && reference !== undefined && reference.status !== 401,
        `the scheme "${scheme}" was refused (401) where "${canonicalScheme(scheme)}" was accepted (${reference?.status})`,
      );
    },
  },
  {
    name: 'empty_json_body',
    description:
      'An empty body sent with Content-Type: application/json to an operation without a body is ignored.',
    // The same request without the header and the empty body: a refusal counts only where it is the
    // header that is refused.
    reference: (probe) => {
      const { 'content-type': _, ...headers } = probe.headers;
      return { method: probe.method, url: probe.url, headers };
    },
    judge: ({ answer, reference }) => {
      const malformed = (status: number) => status === 400 || status === 415;
      return problemIf(
        malformed(answer.status) && reference !== undefined && !malformed(reference.status),
        `an empty body with Content-Type: application/json was refused (${answer.status}); without the header the answer is ${reference?.status}`,
      );
    },
  },
  {
    name: 'unsupported_media_type',
    description: 'A body of an undocumented media type is refused with 415.',
    judge: ({ request, answer }) =>
      problemIf(
        answer.status !== 415,
        `an ${request.headers['content-type']} body was answered ${answer.status}`,
      ),
  },
  {
    name: 'unsupported_method',
    description: 'An undocumented method of a documented path is refused with 405.',
    judge: ({ operation, request, answer }) =>
      problemIf(
        answer.status !== 405,
        `${request.method} ${operation.path} (undocumented) was answered ${answer.status}`,
      ),
  },
  {
    name: 'allow_header_conformance',
    description:
      'A 405 carries an Allow header naming every documented method of the path (RFC 9110 §15.5.6).',
    judge: ({ validator, operation, request, answer }) => {
      if (answer.status !== 405) return [];
      // Documented methods come from the whole spec, not only the operations a run has in scope.
      const documented = validator.operations
        .filter((candidate) => candidate.kind === 'path' && candidate.path === operation.path)
        .map((candidate) => candidate.method.toUpperCase());
      const problem = allowProblem(answer, documented, request.method);
      return problem ? [problem] : [];
    },
  },
  {
    name: 'missing_required_header',
    description: 'A request without one of its required header parameters is refused with a 4xx.',
    judge: ({ operation, request, answer }) => {
      const missing = operation.parameters
        .map((parameter) => parameter.node)
        .filter((parameter) => parameter.in === 'header' && parameter.required === true)
        .map((parameter) => String(parameter.name))
        .filter((name) => request.headers[name.toLowerCase()] === undefined);
      return problemIf(
        !isClientError(answer.status),
        `without its required header ${missing.join(', ')} the request was answered ${answer.status}`,
      );
    },
  },
  {
    name: 'head_matches_get',
    description: 'HEAD answers with the status and headers of GET, and no body.',
    reference: (probe) => ({ ...probe, method: 'GET' }),
    judge: ({ answer, reference }) => {
      const problem = reference && headProblem(answer, reference);
      return problem ? [problem] : [];
    },
  },
  {
    name: 'trailing_slash',
    description: 'A trailing slash is served as the path without it, redirected, or refused with a 4xx.',
    judge: (evidence) => {
      const { status } = evidence.answer;
      if (status >= 500) return [`answered ${status}`];
      const [problem] = status < 300 ? responseProblems(evidence) : [];
      return problem ? [`served, but not as documented: ${problem.message}`] : [];
    },
  },
  {
    name: 'repeated_query_parameters',
    description: 'A repeated single-valued query parameter is used or refused with a 4xx.',
    judge: ({ request, answer }) => {
      const names = [...new URL(request.url).searchParams.keys()];
      const repeated = names.find((name, index) => names.indexOf(name) !== index);
      const { status } = answer;
      return problemIf(
        status >= 500 || (status >= 300 && status < 400),
        `?${repeated} twice was answered ${status}`,
      );
    },
  },
  {
    name: 'integer_spelling',
    description:
      'A read whose integer path parameter names a resource the run made, with that integer spelled otherwise (`+5`, `0x5`, `5abc`), is not served (no 2xx): the parameter is an integer, and a lenient parser (`Number()`, `parseInt`) must not read another text as that id.',
    judge: ({ request, answer }) =>
      problemIf(
        isSuccess(answer.status),
        `${new URL(request.url).pathname} was answered ${answer.status}: an integer spelled otherwise read as a number`,
      ),
  },
  {
    name: 'oversized_body',
    description: 'A body larger than the server accepts is refused with 413.',
    judge: ({ request, answer }) =>
      problemIf(answer.status !== 413, `a body of ${bodyBytes(request)} bytes was answered ${answer.status}`),
  },
  {
    name: 'malformed_json_body',
    description: 'A JSON body that is no JSON text (cut short, or not UTF-8) is refused with a 4xx.',
    judge: ({ answer }) =>
      problemIf(
        !isClientError(answer.status),
        `a JSON body that is no JSON text was answered ${answer.status}`,
      ),
  },
  {
    name: 'site_scenario',
    description:
      'A scenario of the site suite holds: a walk through WordPress content (create, revise, trash, delete) or the drift check against the route index.',
  },
  {
    name: 'request_headers_conformance',
    description: 'A webhook delivery carries the documented headers.',
  },
  {
    name: 'request_body_conformance',
    description: 'A webhook delivery matches exactly one documented webhook and its schema.',
  },
  {
    name: 'callback_accepted',
    description:
      "An event's callback takes a post-back with the event's own token while it is valid (2xx): the MESSAGE_POSTED event the webhooks phase receives.",
  },
  {
    name: 'max_response_time',
    description:
      'Every answer arrives within --max-response-time (checked, per operation, only when that budget is given).',
  },
] as const satisfies readonly CheckDefinition[];

export type CheckName = (typeof CHECK_LIST)[number]['name'];

export interface Check extends CheckDefinition {
  name: CheckName;
}

/** Every check by its name. */
export const CHECKS: Readonly<Record<CheckName, Check>> = Object.fromEntries(
  CHECK_LIST.map((check) => [check.name, check]),
) as Record<CheckName, Check>;

export const CHECK_NAMES: readonly CheckName[] = CHECK_LIST.map((check) => check.name);

export function isCheckName(name: string): name is CheckName {
  return Object.hasOwn(CHECKS, name);
}

/**
 * Sends a check's probe, and its reference request after it when the check compares two answers: the
 * exchange the check judges, in the run and in `replay` alike.
 */
export async function exchange(
  check: Check,
  request: SentRequest,
  send: (request: SentRequest) => Promise<Answer>,
): Promise<Pick<Evidence, 'request' | 'answer' | 'reference'>> {
  const answer = await send(request);
  const reference = check.reference ? await send(check.reference(request)) : undefined;
  return { request, answer, reference };
}

/** The checks every response of a documented operation is held to. */
export const RESPONSE_CHECKS: readonly CheckName[] = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
];

export const PHASES = ['examples', 'coverage', 'fuzz', 'stateful', 'transport', 'webhooks'] as const;
export type PhaseName = (typeof PHASES)[number];

/** Named selections of phases and checks (`--profile`), for targets that cannot be held to all of them. */
export const PROFILES = {
  /**
   * A mock that keeps no state and takes any credential (Prism; the repository's mocks started with
   * `--stateless`; with memory they are held to everything): what it answers, held to the spec — not
   * what it remembers (no stateful or fuzz phase: created things are not there to read back), whom it lets
   * in (ignored_auth), what it accepts and refuses (a mock validates requests by rules of its own: add
   * `--checks` with negative_data_rejection for one that follows the spec), nor the HTTP details it answers
   * its own way (HEAD, 405, 413, a trailing slash, a repeated parameter, a foreign media type).
   */
  stateless: {
    phases: ['examples', 'coverage', 'transport'],
    checks: [...RESPONSE_CHECKS, 'auth_scheme_case', 'empty_json_body'],
  },
} as const satisfies Record<string, { phases: readonly PhaseName[]; checks: readonly CheckName[] }>;
export type ProfileName = keyof typeof PROFILES;

/**
 * A status that is not the one a check expects, with what it is (`expected`: what it should have been) and
 * the message of its body: a refusal of a valid request reads as the refusal it is, not as a resource.
 */
function described(answer: Answer, expected: string): string {
  const kind = answer.status >= 500 ? 'a server error' : answer.status >= 400 ? 'a refusal' : 'a redirect';
  const message = errorMessage(answer);
  return `${answer.status} (${kind}, ${expected})${message ? `: ${message}` : ''}`;
}

const MESSAGE_LENGTH = 160;

/** An error body's message, shortened: its text field (RFC 9457's detail or title, or a message), else its start. */
function errorMessage(answer: Answer): string {
  const body = answer.json;
  const field = isObject(body)
    ? ['detail', 'message', 'title', 'error']
        .map((name) => body[name])
        .find((value) => typeof value === 'string')
    : undefined;
  const text = (typeof field === 'string' ? field : answer.text).replace(/\s+/g, ' ').trim();
  return text.length > MESSAGE_LENGTH ? `${text.slice(0, MESSAGE_LENGTH)}…` : text;
}

/** `Bearer`, `Basic`: the scheme as RFC 9110 writes it. */
function canonicalScheme(scheme: string): string {
  if (scheme.toLowerCase() === 'bearer') return 'Bearer';
  return scheme.charAt(0).toUpperCase() + scheme.slice(1).toLowerCase();
}

function bodyBytes(request: SentRequest): number {
  const { body } = request;
  if (body === undefined) return 0;
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

/** What differs between a HEAD's answer and its GET's (status, a body, the media type), if anything. */
function headProblem(head: Answer, get: Answer): string | undefined {
  const type = (answer: Answer) => answer.headers.get('content-type')?.split(';')[0]?.trim();
  if (head.status !== get.status) return `HEAD answered ${head.status}, GET ${get.status}`;
  if (head.text.length > 0) return `HEAD answered with a body of ${head.text.length} characters`;
  if (get.status < 300 && type(head) !== type(get))
    return `HEAD's Content-Type ${type(head)} differs from GET's ${type(get)}`;
  return undefined;
}

/** What is wrong with a 405's Allow header, given the path's documented methods and the one refused. */
function allowProblem(answer: Answer, documented: string[], refused: string): string | undefined {
  const header = answer.headers.get('allow');
  if (header === null) return `405 without an Allow header (documented: ${documented.join(', ')})`;
  const allowed = header.split(',').map((item) => item.trim().toUpperCase());
  const unnamed = documented.filter((method) => !allowed.includes(method));
  if (unnamed.length > 0) return `405 with Allow "${header}", not naming ${unnamed.join(', ')}`;
  if (allowed.includes(refused)) return `405 to ${refused} with Allow "${header}" naming ${refused}`;
  return undefined;
}

/** Whether a 2xx body is a deleted resource's form: it matches a schema marked `x-resource-deleted`. */
function isDeletedForm({ validator, operation, answer }: Evidence): boolean {
  const response = operation.responses[String(answer.status)];
  const content = isObject(response?.content) ? (response.content as JsonObject) : {};
  const [mediaType] = Object.keys(content);
  const media = mediaType === undefined ? undefined : content[mediaType];
  if (mediaType === undefined || !isObject(media) || media.schema === undefined) return false;
  const pointer = joinPointer(
    operation.pointer,
    'responses',
    String(answer.status),
    'content',
    mediaType,
    'schema',
  );
  return deletedSchemas(validator, { node: media.schema, pointer }).some(
    (schema) => validator.validateAt(schema.pointer, answer.json).length === 0,
  );
}

/** The schemas marked `x-resource-deleted` a schema is, or is among its `oneOf`/`anyOf` branches. */
export function deletedSchemas(validator: SpecValidator, schema: Located<unknown>, depth = 0): Located[] {
  if (depth > 3) return [];
  const resolved = validator.resolve(schema as Located);
  if (resolved.node['x-resource-deleted'] === true) return [resolved];
  return ['oneOf', 'anyOf'].flatMap((keyword) => {
    const branches = resolved.node[keyword];
    if (!Array.isArray(branches)) return [];
    return branches.flatMap((branch, index) =>
      deletedSchemas(
        validator,
        { node: branch, pointer: joinPointer(resolved.pointer, keyword, String(index)) },
        depth + 1,
      ),
    );
  });
}
