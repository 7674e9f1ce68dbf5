// The fuzz phase: property-based requests per operation with fast-check, positive (schema-valid) and
// negative (one constraint broken), each with fresh values in its body's unique fields. A failure is shrunk
// to a minimal request by fast-check and recorded from the answer that request got while fast-check
// explored: sent again, a create would meet what its first sending made. A request generated twice is
// sent once.

import type { Operation } from '@platform-api/validator';
import fc from 'fast-check';
import type { CallResult } from '../../client.js';
import { freshener, type GeneratedRequest, negativeRequests, positiveRequests } from '../requests.js';
import type { Session } from '../session.js';
import { type Expectation, judgeCall, skipUngenerable } from './judge.js';

export async function fuzzPhase(session: Session): Promise<void> {
  for (const [index, operation] of session.operations.entries()) {
    await skipUngenerable(session, operation, () => fuzzOperation(session, operation, index));
  }
}

async function fuzzOperation(session: Session, operation: Operation, index: number): Promise<void> {
  const freshen = freshener(session.validator, operation, () => session.uniqueTag());
  const positive = positiveRequests(session.validator, operation, session.text, { freshen });
  await explore(session, operation, positive, () => ({ valid: true }), session.seed + index * 2);
  const negative = negativeRequests(session.validator, operation, session.text, {
    malformedBodies: session.enabled('malformed_json_body', operation.operationId),
    freshen,
  });
  if (negative) {
    await explore(
      session,
      operation,
      negative,
      (request) => ({
        valid: false,
        violates: request.violates ?? 'the schema',
        ...(request.malformed ? { check: 'malformed_json_body' as const } : {}),
      }),
      session.seed + index * 2 + 1,
    );
  }
}

/**
 * Runs fast-check over `requests`, judging each answer quietly, then records the minimal failing
 * request's verdict from the answer it got.
 */
async function explore(
  session: Session,
  operation: Operation,
  requests: fc.Arbitrary<GeneratedRequest>,
  expectation: (request: GeneratedRequest) => Expectation,
  seed: number,
): Promise<void> {
  // Each generated request's answer, kept for the one fast-check ends up calling minimal.
  const answers = new WeakMap<GeneratedRequest, CallResult>();
  // A request generated again (or shrunk to one sent before) tests nothing new: it takes the verdict of
  // its first sending instead of a request of the run's rate limit.
  const verdicts = new Map<string, { result: CallResult; held: boolean }>();
  const property = fc.asyncProperty(requests, async (request) => {
    const key = session.sameRequestKey(request.options);
    const earlier = verdicts.get(key);
    if (earlier) {
      answers.set(request, earlier.result);
      return earlier.held;
    }
    const result = await session.call(operation, request.options);
    answers.set(request, result);
    const held = judgeCall(session, result, expectation(request), { stale: request.stale });
    verdicts.set(key, { result, held });
    return held;
  });
  session.quiet = true;
  const outcome = await fc.check(property, { seed, numRuns: session.maxExamples }).finally(() => {
    session.quiet = false;
  });
  const minimal = outcome.counterexample?.[0];
  if (outcome.failed && minimal) {
    const seen = answers.get(minimal);
    // Unknown only if fast-check handed back another object than it sent: then it is sent once more, its
    // unique values no longer fresh.
    const result = seen ?? (await session.call(operation, minimal.options));
    const stale = seen ? minimal.stale : (minimal.stale ?? 'a request sent again');
    judgeCall(session, result, expectation(minimal), { stale });
  } else if (outcome.failed && outcome.errorInstance) {
    throw outcome.errorInstance;
  }
}
