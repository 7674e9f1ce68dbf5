// Target-independent phases of the contract suite, as vitest test definitions. Each phase derives
// its requests from the spec (examples, security requirements, schemas), never from a hand list.

import type { Operation, SpecValidator } from '@platform-api/validator';
import { expect, it } from 'vitest';
import type { ContractClient } from './client.js';
import { exampleRequest, invalidBodyRequest } from './examples.js';

export interface PhaseOptions {
  /** The client, created in a beforeAll (hence a getter). */
  client: () => ContractClient;
  /** Which operations the phase covers (default: every path operation). */
  include?: (operation: Operation) => boolean;
  /** Statuses the example phase accepts (default: any 2xx). */
  acceptStatus?: (status: number, operation: Operation) => boolean;
}

const isPath = (operation: Operation) => operation.kind === 'path';

/** examples + positive_data_acceptance: a request built from the spec's examples is accepted. */
export function examplesPhase(operations: Operation[], options: PhaseOptions): void {
  const accept = options.acceptStatus ?? ((status) => status >= 200 && status < 300);
  for (const operation of operations.filter(isPath).filter(options.include ?? (() => true))) {
    it(`${operation.operationId}: the example request is accepted and the response conforms`, async () => {
      const client = options.client();
      const result = await client.call(operation.operationId, exampleRequest(client.validator, operation));
      expect(result.problems).toEqual([]);
      expect(accept(result.status, operation), `status ${result.status}: ${result.text.slice(0, 300)}`).toBe(
        true,
      );
    });
  }
}

/** ignored_auth: an operation that requires credentials refuses a request without them with 401. */
export function ignoredAuthPhase(operations: Operation[], options: PhaseOptions): void {
  const secured = operations
    .filter(isPath)
    .filter(options.include ?? (() => true))
    .filter(
      (operation) =>
        operation.security.length > 0 && operation.security.every((r) => Object.keys(r).length > 0),
    );
  for (const operation of secured) {
    it(`${operation.operationId}: refuses a request without credentials`, async () => {
      const client = options.client();
      const result = await client.call(operation.operationId, {
        ...exampleRequest(client.validator, operation),
        authenticate: false,
      });
      expect(result.problems).toEqual([]);
      expect(result.status).toBe(401);
    });
  }
}

/** negative_data_rejection: a schema-invalid JSON body is rejected with a documented 4xx. */
export function negativeDataPhase(validator: SpecValidator, options: PhaseOptions): void {
  // Only operations that take a JSON body get a test: the others have nothing to mutate.
  const withBody = validator.operations
    .filter(isPath)
    .filter(options.include ?? (() => true))
    .flatMap((operation) => {
      const request = invalidBodyRequest(validator, operation);
      return request ? [{ operation, request }] : [];
    });
  for (const { operation, request } of withBody) {
    it(`${operation.operationId}: rejects a schema-invalid body`, async () => {
      const result = await options.client().call(operation.operationId, request);
      expect(result.problems).toEqual([]);
      expect(result.status, result.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(result.status).toBeLessThan(500);
    });
  }
}
