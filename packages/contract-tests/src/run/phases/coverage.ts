// The coverage phase: for each parameter and the body of each operation, the deterministic list of
// boundary and negative values of its schema (bounds and ±1, lengths, enum members, formats, null, a
// wrong type, a required field missing, an unknown property, control characters, each optional parameter
// alone, and inside a body each property's and item's bounds), each put into an otherwise valid request
// (on a resource the run made, where the spec's links lead there); and a JSON body cut short and one that
// is not UTF-8.
// Each request carries fresh values in its body's unique fields (values/unique.ts), but for the field its
// case tests: a value an earlier request took would get a right server's 409, which tests nothing.
import type { Operation } from '@platform-api/validator';
import type { CallOptions } from '../../client.js';
import { CreatedResources } from '../links.js';
import { malformedBodies } from '../malformed-bodies.js';
import {
  baseRequest,
  freshener,
  freshRequest,
  generationLocation,
  isJsonBody,
  requestParts,
  sendableInvalid,
  withPart,
} from '../requests.js';
import type { Session } from '../session.js';
import { coverageValues } from '../values/index.js';
import { type Expectation, judgeCall, skipUngenerable } from './judge.js';

export async function coveragePhase(session: Session): Promise<void> {
  // An operation that names a resource is covered on one the run made, where the spec's links lead there:
  // on an example id no real server has, every value would meet the same 404 before it is read.
  const resources = new CreatedResources(session);
  for (const operation of session.operations) {
    await skipUngenerable(session, operation, async () => {
      const base =
        (await resources.requestFor(operation)) ??
        baseRequest(session.validator, operation, session.seed, session.text);
      await coverOperation(session, operation, base);
    });
  }
}

async function coverOperation(session: Session, operation: Operation, base: CallOptions): Promise<void> {
  // Every request gets fresh values in the body's unique fields, but for the one a case tests.
  const freshen = freshener(session.validator, operation, () => session.uniqueTag());
  const send = async (request: CallOptions, expected: Expectation, keep?: (name: string) => boolean) => {
    const { options, stale } = freshRequest(request, freshen, keep);
    judgeCall(session, await session.call(operation, options), expected, { stale });
  };
  for (const part of requestParts(operation)) {
    const where = part.location === 'body' ? 'body' : `${part.location} ${part.name}`;
    const values = coverageValues(session.validator, part.schema, {
      location: generationLocation(part),
      ...session.text,
    });
    for (const { value, valid, label, unchanged } of values) {
      // An empty path parameter is another URL, not a value of this one (the trailing_slash check's).
      if (part.location === 'path' && (value === '' || value === null)) continue;
      if (!valid && !sendableInvalid(part, value)) continue;
      const tested = part.location === 'body' ? (name: string) => !unchanged?.includes(name) : undefined;
      await send(
        withPart(base, part, value),
        valid ? { valid: true } : { valid: false, violates: `${where}: ${label}` },
        tested,
      );
    }
    if (isJsonBody(part) && session.enabled('malformed_json_body', operation.operationId)) {
      // The base body (or, when the base has none, an empty object) as bytes that are no JSON text, made
      // fresh before it becomes bytes.
      const { options } = freshRequest(base, freshen);
      for (const malformed of malformedBodies(options.body ?? {})) {
        const result = await session.call(operation, withPart(base, part, malformed.bytes));
        judgeCall(session, result, {
          valid: false,
          violates: `body: ${malformed.label}`,
          check: 'malformed_json_body',
        });
      }
    }
    // Left out, the optional part must not change whether the request is acceptable.
    if (!part.required) await send(withPart(base, part, undefined), { valid: true });
  }
}
