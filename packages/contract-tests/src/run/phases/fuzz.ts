// The fuzz phase: property-based requests per operation with fast-check, positive (schema-valid) and
// negative (one constraint broken). A failure is shrunk to a minimal request by fast-check, then replayed
// once more so the report shows exactly that request and its answer.

import type { Operation } from '@platform-api/validator';
import fc from 'fast-check';
import type { CallResult } from '../../client.js';
import { type GeneratedRequest, negativeRequests, positiveRequests } from '../requests.js';
import type { Session } from '../session.js';
import { type Expectation, judgeCall, skipUngenerable } from './judge.js';

export async function fuzzPhase(session: Session): Promise<void> {
  for (const [index, operation] of session.operations.entries()) {
    await skipUngenerable(session, operation, () => fuzzOperation(session, operation, index));
  }
}

async function fuzzOperation(session: Session, operation: Operation, index: number): Promise<void> {
  {
    const positive = positiveRequests(session.validator, operation, session.text);
    await explore(
      session,
      operation,
      positive,
      (request) => (request.undetermined ? { valid: 'unknown' } : { valid: true }),
      session.seed + index * 2,
    );
    const negative = negativeRequests(session.validator, operation, session.text, {
      malformedBodies: session.enabled('malformed_json_body', operation.operationId),
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
}

async function explore(
  session: Session,
  operation: Operation,
  requests: fc.Arbitrary<GeneratedRequest>,
  expectation: (request: GeneratedRequest) => Expectation,
  seed: number,
): Promise<void> {
  // While fast-check explores and shrinks, answers are judged silently; only the minimal failing
  // request is recorded.
  const property = fc.asyncProperty(requests, async (request) => {
    const result = await session.call(operation, request.options);
    return judgeCall(session, result, expectation(request));
  });
  session.quiet = true;
  const outcome = await fc.check(property, { seed, numRuns: session.maxExamples }).finally(() => {
    session.quiet = false;
  });
  const minimal = outcome.counterexample?.[0];
  if (outcome.failed && minimal) {
    const result: CallResult = await session.call(operation, minimal.options);
    judgeCall(session, result, expectation(minimal));
  } else if (outcome.failed && outcome.errorInstance) {
    throw outcome.errorInstance;
  }
}
