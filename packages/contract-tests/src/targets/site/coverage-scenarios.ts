// The scenarios that close the contract suite: every operation of the spec was called, the statuses the
// spec is about were produced (not on the mock with memory, where what needs WordPress is skipped), and
// (on the stateless mock, which can produce any documented response) every documented status of every
// operation answers with a response that fits the spec.
import assert from 'node:assert/strict';
import { exampleRequest } from '../../examples.js';
import type { SiteHarness } from './harness.js';
import { pngImage } from './png.js';
import type { Scenario } from './scenario.js';
import { documentedStatuses } from './summary.js';

export function coverageScenarios(h: SiteHarness): Scenario[] {
  const pathOperations = () => h.validator.operations.filter((operation) => operation.kind === 'path');
  const notApplicable = h.needsWordPress('every scenario run (those that need WordPress are skipped here)');
  return [
    {
      name: 'called every operation of the spec',
      notApplicable,
      run: async () => {
        const uncalled = pathOperations()
          .map((operation) => operation.operationId)
          .filter((operationId) => !h.called.has(operationId));
        assert.deepEqual(uncalled, [], 'operations never called');
      },
    },
    {
      name: 'produced the statuses the spec is about',
      notApplicable,
      run: async () => {
        const all = new Set([...h.produced.values()].flatMap((statuses) => [...statuses]));
        const absent = [200, 201, 207, 400, 401, 403, 404, 410, 501].filter((status) => !all.has(status));
        assert.deepEqual(absent, [], 'statuses never produced');
      },
    },
    {
      name: 'answers every documented status of every operation with a response that fits the spec',
      notApplicable: () =>
        h.target.kind === 'stateless-mock'
          ? undefined
          : 'it answers what it does, not the status a request asks for (Prefer: code=N is for the stateless mock)',
      run: async () => {
        const problems: string[] = [];
        for (const operation of pathOperations()) {
          const request = exampleRequest(h.validator, operation);
          if (request.contentType?.includes('*')) {
            request.contentType = 'image/png';
            request.body = pngImage();
            request.headers = {
              ...request.headers,
              'content-disposition': 'attachment; filename=example.png',
            };
          }
          for (const status of documentedStatuses(operation)) {
            const result = await h.session.call(
              operation,
              { ...request, headers: { ...request.headers, prefer: `code=${status}` } },
              h.client,
            );
            h.record(result);
            // A documented 500 is a server error by definition; here only its shape is checked.
            const relevant = h.session
              .responseProblems(result)
              .filter((problem) => problem.check !== 'not_a_server_error');
            if (result.status !== Number(status))
              problems.push(
                `${operation.operationId} ${status}: got ${result.status} ${result.text.slice(0, 200)}`,
              );
            for (const problem of relevant)
              problems.push(`${operation.operationId} ${status}: ${problem.check} ${problem.message}`);
          }
        }
        assert.deepEqual(problems, [], 'documented responses the mock does not answer as documented');
      },
    },
  ];
}
