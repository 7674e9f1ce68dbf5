// How `replay` judges the answer to a failure's request sent again: the response checks exactly as the run
// applies them (the validator), and for the other checks the run's rule on the one answer where the run's
// rule reads only that answer; where it compared two answers (HEAD with GET, a scheme with its canonical
// case), the second is sent again too.
import type { Operation, SpecValidator } from '@platform-api/validator';
import type { Answer, SentRequest } from '../client.js';
import { type CheckName, RESPONSE_CHECKS } from './checks.js';
import { allowProblem, headProblem, isClientError, isSuccess, MALFORMED_REQUEST } from './verdicts.js';

export interface Verdict {
  /** Whether the failure shows again; undefined when this check cannot be judged from a replay. */
  reproduces: boolean | undefined;
  /** Why, in a line. */
  reason: string;
}

/** Sends one more request when the rule compares answers (HEAD with GET). */
type Send = (request: SentRequest) => Promise<Answer>;

/** Checks whose failing request is one the server sent (webhooks) or not a request at all (scenarios). */
export const NOT_REPLAYABLE = new Set<CheckName>([
  'request_body_conformance',
  'request_headers_conformance',
  'site_scenario',
]);

export async function rejudge(
  validator: SpecValidator,
  failure: { check: CheckName; operationId: string; message: string },
  request: SentRequest,
  answer: Answer,
  send: Send,
): Promise<Verdict> {
  const operation = validator.operations.find(
    (candidate) => candidate.kind === 'path' && candidate.operationId === failure.operationId,
  );
  if (!operation) return { reproduces: undefined, reason: `${failure.operationId} is not in the spec` };
  const problems = (check?: CheckName) =>
    validator
      .validateResponse(operation, { status: answer.status, headers: answer.headers, body: answer.text })
      .filter((problem) => check === undefined || problem.check === check);
  const byStatus = (fails: boolean, rule: string): Verdict => ({
    reproduces: fails,
    reason: `${rule}; answered ${answer.status}`,
  });
  const { status } = answer;

  if (RESPONSE_CHECKS.includes(failure.check)) {
    const found = problems(failure.check);
    return found.length > 0
      ? { reproduces: true, reason: found.map((problem) => problem.message).join('\n') }
      : { reproduces: false, reason: `the answer passes ${failure.check}` };
  }
  switch (failure.check) {
    case 'negative_data_rejection':
      return byStatus(!isClientError(status), 'a request that breaks the schema must get a 4xx');
    case 'malformed_json_body':
      return byStatus(!isClientError(status), 'a JSON body that is no JSON text must get a 4xx');
    case 'missing_required_header':
      return byStatus(!isClientError(status), 'a request without a required header must get a 4xx');
    case 'positive_data_acceptance':
      return byStatus(MALFORMED_REQUEST.has(status), 'a schema-valid request must not get 400, 415 or 422');
    case 'ignored_auth':
      return byStatus(isSuccess(status), 'without valid credentials the answer must not be a 2xx');
    case 'ensure_resource_availability':
      return byStatus(!isSuccess(status), 'a created resource must be readable (2xx)');
    case 'tenant_isolation':
      // The owner's read after the other tenant's attempts, or the other tenant's own request.
      return failure.message.startsWith('after another tenant')
        ? byStatus(!isSuccess(status), "the owner's read must still succeed (2xx; judged by status only)")
        : byStatus(status !== 403 && status !== 404, "another tenant's request must get 403 or 404");
    case 'use_after_free':
      // The run also accepts a 2xx in a schema marked x-resource-deleted; replay judges the status alone.
      return byStatus(status !== 404 && status !== 410, 'a read after a delete must get 404 or 410');
    case 'unsupported_media_type':
      return byStatus(status !== 415, 'a body of an undocumented media type must get 415');
    case 'oversized_body':
      return byStatus(status !== 413, 'a body larger than the server accepts must get 413');
    case 'repeated_query_parameters':
      return byStatus(status >= 300 && (status < 400 || status >= 500), 'must not get a 3xx or 5xx');
    case 'empty_json_body':
      return byStatus(status === 400 || status === 415, 'must not be refused as malformed (400 or 415)');
    case 'trailing_slash': {
      if (status >= 500) return byStatus(true, 'must not get a 5xx');
      const found = status < 300 ? problems() : [];
      return found.length > 0
        ? { reproduces: true, reason: `served, but not as documented: ${found[0]!.message}` }
        : byStatus(false, 'served as documented, redirected or refused with a 4xx');
    }
    case 'unsupported_method':
      return byStatus(status !== 405, 'an undocumented method must get 405');
    case 'allow_header_conformance':
      return allowHeader(validator, operation, request, answer);
    case 'auth_scheme_case':
      return authSchemeCase(request, answer, send);
    case 'head_matches_get':
      return headMatchesGet(request, answer, send);
    default:
      return { reproduces: undefined, reason: `replay cannot judge ${failure.check}` };
  }
}

function allowHeader(
  validator: SpecValidator,
  operation: Operation,
  request: SentRequest,
  answer: Answer,
): Verdict {
  if (answer.status !== 405) return { reproduces: false, reason: `answered ${answer.status}, not a 405` };
  const methods = validator.operations
    .filter((candidate) => candidate.kind === 'path' && candidate.path === operation.path)
    .map((candidate) => candidate.method.toUpperCase());
  const problem = allowProblem(answer, methods, request.method);
  return problem
    ? { reproduces: true, reason: problem }
    : { reproduces: false, reason: '405 with an Allow header naming every documented method' };
}

async function authSchemeCase(request: SentRequest, answer: Answer, send: Send): Promise<Verdict> {
  if (answer.status !== 401)
    return { reproduces: false, reason: `the scheme's case was accepted (${answer.status})` };
  const [scheme = '', ...rest] = (request.headers.authorization ?? '').split(' ');
  const canonical =
    scheme.toLowerCase() === 'bearer' ? 'Bearer' : scheme[0]!.toUpperCase() + scheme.slice(1).toLowerCase();
  const reference = await send({
    ...request,
    headers: { ...request.headers, authorization: [canonical, ...rest].join(' ') },
  });
  return reference.status === 401
    ? { reproduces: false, reason: `"${canonical}" is refused too (401): the credential itself is refused` }
    : {
        reproduces: true,
        reason: `"${scheme}" refused (401) where "${canonical}" was accepted (${reference.status})`,
      };
}

async function headMatchesGet(request: SentRequest, head: Answer, send: Send): Promise<Verdict> {
  const problem = headProblem(head, await send({ ...request, method: 'GET' }));
  return problem
    ? { reproduces: true, reason: problem }
    : { reproduces: false, reason: 'HEAD answered like GET, without a body' };
}
