import { type OpenApiDocument, SpecValidator } from '@platform-api/validator';
import { listOperations, loadPlatformSpec, type SpecOperation } from '../../src/spec.js';

/*
 * The server tests' view of the shared response validator (@platform-api/validator, the one the
 * contract suite uses): the status is documented, the media type is documented, the body matches the
 * schema, and documented required headers are present and valid.
 */

export const doc = loadPlatformSpec();
export const operations = listOperations(doc);
const validator = new SpecValidator(doc as unknown as OpenApiDocument);

export function findOperation(method: string, path: string): SpecOperation | undefined {
  const found = validator.findOperation(method, path);
  return found && operations.find((op) => op.operationId === found.operationId);
}

export function responseProblems(
  op: SpecOperation,
  status: number,
  headers: Headers,
  text: string,
): string[] {
  return validator
    .validateResponse(validator.operation(op.operationId), { status, headers, body: text })
    .map((problem) => problem.message);
}

/** Problems of `value` against a component schema (empty when valid). */
export function schemaProblems(name: string, value: unknown): string[] {
  return validator.validateAt(`#/components/schemas/${name}`, value);
}

/** Problems of a payload against the body schema the spec declares for a webhook (event type). */
export function webhookPayloadProblems(type: string, payload: unknown): string[] {
  const webhook = validator.operations.find((op) => op.kind === 'webhook' && op.path === type);
  if (!webhook) return [`no webhook ${type} in the spec`];
  const body = validator.resolve({
    node: webhook.node.requestBody,
    pointer: `${webhook.pointer}/requestBody`,
  });
  return validator.validateAt(`${body.pointer}/content/application~1json/schema`, payload);
}
