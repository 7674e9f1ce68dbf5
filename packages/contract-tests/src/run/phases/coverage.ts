// The coverage phase: for each parameter and the body of each operation, the deterministic list of
// boundary and negative values of its schema (bounds and ±1, lengths, enum members, formats, null, a
// wrong type, a required field missing, an unknown property, control characters, each optional parameter
// alone), each put into an otherwise valid request; and a JSON body cut short and one that is not UTF-8.
import type { Operation } from '@platform-api/validator';
import { malformedBodies } from '../malformed-bodies.js';
import {
  baseRequest,
  generationLocation,
  isJsonBody,
  requestParts,
  sendableInvalid,
  withPart,
} from '../requests.js';
import type { Session } from '../session.js';
import { coverageValues } from '../values/index.js';
import { judgeCall, skipUngenerable } from './judge.js';

export async function coveragePhase(session: Session): Promise<void> {
  for (const operation of session.operations) {
    await skipUngenerable(session, operation, () => coverOperation(session, operation));
  }
}

async function coverOperation(session: Session, operation: Operation): Promise<void> {
  {
    const base = baseRequest(session.validator, operation, session.seed, session.text);
    for (const part of requestParts(operation)) {
      const where = part.location === 'body' ? 'body' : `${part.location} ${part.name}`;
      const values = coverageValues(session.validator, part.schema, {
        location: generationLocation(part),
        ...session.text,
      });
      for (const { value, valid, label, undetermined } of values) {
        // An empty path parameter is another URL, not a value of this one (the trailing_slash check's).
        if (part.location === 'path' && (value === '' || value === null)) continue;
        if (!valid && !sendableInvalid(part, value)) continue;
        const result = await session.call(operation, withPart(base, part, value));
        judgeCall(
          session,
          result,
          undetermined
            ? { valid: 'unknown' }
            : valid
              ? { valid: true }
              : { valid: false, violates: `${where}: ${label}` },
        );
      }
      if (isJsonBody(part) && session.enabled('malformed_json_body', operation.operationId)) {
        // The base body (or, when the base has none, an empty object) as bytes that are no JSON text.
        for (const malformed of malformedBodies(base.body ?? {})) {
          const result = await session.call(operation, withPart(base, part, malformed.bytes));
          judgeCall(session, result, {
            valid: false,
            violates: `body: ${malformed.label}`,
            check: 'malformed_json_body',
          });
        }
      }
      if (!part.required) {
        // Left out, the optional part must not change whether the request is acceptable.
        const result = await session.call(operation, withPart(base, part, undefined));
        judgeCall(session, result, { valid: true });
      }
    }
  }
}
