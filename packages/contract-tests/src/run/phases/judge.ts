// How one answer to a generated or example request is judged: the response checks, then whether a valid
// request was accepted (positive_data_acceptance) or an invalid one refused (negative_data_rejection).

import type { Operation } from '@platform-api/validator';
import type { CallResult } from '../../client.js';
import type { Session } from '../session.js';
import { documentedRefusal } from '../spec-rules.js';
import { GenerationError } from '../values/index.js';

export type Expectation =
  | { valid: true }
  /** `check`: the check that holds the refusal (default negative_data_rejection). */
  | { valid: false; violates: string; check?: 'negative_data_rejection' | 'malformed_json_body' }
  | { valid: 'unknown' };

/**
 * Records the checks for one answer; returns whether everything held. A request its schemas allow but the
 * spec's own rules refuse (run/spec-rules.ts) is expected to be refused, like one that breaks a schema.
 * `stale`: a unique field the body carries with a value not made fresh for this request.
 */
export function judgeCall(
  session: Session,
  result: CallResult,
  expected: Expectation,
  { stale }: { stale?: string | undefined } = {},
): boolean {
  const held = session.checkResponse(result);
  // A documented conflict where the body reuses a unique value may be the server meeting that value
  // again, not its verdict on what the request tests: it decides acceptance neither way.
  if (stale !== undefined && result.status === 409 && Object.hasOwn(result.operation.responses, '409'))
    return held;
  const evidence = { operation: result.operation, request: result.request, answer: result };
  let expectation = expected;
  if (expectation.valid === true) {
    const refusal = documentedRefusal(session.validator, result.operation, result.request);
    // A refusal the target may or may not make (x-public-host) is checked neither way.
    if (refusal)
      expectation = refusal.certain ? { valid: false, violates: refusal.reason } : { valid: 'unknown' };
  }
  if (expectation.valid === true) return session.judge('positive_data_acceptance', evidence) && held;
  if (expectation.valid === false) {
    const check = expectation.check ?? 'negative_data_rejection';
    return session.judge(check, evidence, { context: expectation.violates }) && held;
  }
  return held;
}

/** Runs one operation's share of a phase; a schema the generator cannot satisfy skips it, with the reason. */
export async function skipUngenerable(
  session: Session,
  operation: Operation,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof GenerationError)) throw error;
    session.skip('positive_data_acceptance', operation.operationId, error.message);
  }
}
