import { type Operation, SpecValidator } from '@platform-api/validator';
import { loadPlatformSpec, servedOperations } from '../../src/spec.js';

/*
 * The server tests' view of the shared response validator (@platform-api/validator, the one the
 * contract suite uses): the status is documented, the media type is documented, the body matches the
 * schema, and documented required headers are present and valid.
 */

export const doc = loadPlatformSpec();
export const operations = servedOperations(doc);
const validator = new SpecValidator(doc as never);

export function findOperation(method: string, path: string): Operation | undefined {
  return validator.findOperation(method, path);
}

/** The spec's operation for a request; throws when the spec has none (a test's own mistake). */
export function operationAt(method: string, path: string): Operation {
  const op = validator.findOperation(method, path);
  if (!op) throw new Error(`the spec has no operation for ${method} ${path}`);
  return op;
}

export function responseProblems(op: Operation, status: number, headers: Headers, text: string): string[] {
  return validator.validateResponse(op, { status, headers, body: text }).map((problem) => problem.message);
}

/** Problems of `value` against a component schema (empty when valid). */
export function schemaProblems(name: string, value: unknown): string[] {
  return validator.validateAt(`#/components/schemas/${name}`, value);
}

/** Problems of a payload against the body schema the spec declares for a webhook (event type). */
export function webhookPayloadProblems(type: string, payload: unknown): string[] {
  const webhook = validator.operations.find((op) => op.kind === 'webhook' && op.path === type);
  if (!webhook) return [`no webhook ${type} in the spec`];
  if (!webhook.requestBody) return [`webhook ${type} documents no body`];
  return validator.validateAt(`${webhook.requestBody.pointer}/content/application~1json/schema`, payload);
}
