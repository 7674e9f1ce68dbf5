// The transport checks a specification of our own cannot exercise (no platform or site operation takes a
// required header parameter), against a small spec and a real node:http server that is right or wrong on
// purpose: each check must pass against the right server and report the wrong one.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CheckName,
  ContractClient,
  failuresOf,
  type OpenApiDocument,
  runContractTests,
  SpecValidator,
} from '../src/index.js';

const spec = {
  openapi: '3.1.0',
  info: { title: 'items', version: '1' },
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string' }, example: 'acme' },
        ],
        responses: {
          '200': { description: 'the items', content: { 'application/json': { schema: { type: 'array' } } } },
          '400': { description: 'no tenant' },
          '405': { description: 'not a method of /items' },
        },
      },
    },
  },
} as unknown as OpenApiDocument;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A server of the spec: it answers a tenant's GET; `faults` are what it gets wrong. */
function itemsServer(faults: { ignoresTenant?: boolean; allow?: string | null }): Handler {
  return (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const headers: Record<string, string> = {};
      if (faults.allow !== null) headers.allow = faults.allow ?? 'GET, HEAD';
      response.writeHead(405, headers).end();
    } else if (!request.headers['x-tenant'] && !faults.ignoresTenant) {
      response.writeHead(400).end();
    } else {
      response.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    }
  };
}

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function run(handler: Handler, check: CheckName) {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const validator = new SpecValidator(spec);
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const report = await runContractTests({
    api: 'items',
    target: baseUrl,
    validator,
    client: new ContractClient({ validator, baseUrl }),
    phases: ['transport'],
    checks: [check],
    seed: 1,
  });
  const results = report.results.filter((result) => result.check === check);
  return { results, failures: failuresOf(report).map((failure) => failure.message) };
}

describe('missing_required_header', () => {
  it('holds when the request without the header is refused', async () => {
    const { results, failures } = await run(itemsServer({}), 'missing_required_header');
    expect(failures).toEqual([]);
    expect(results.map((result) => [result.outcome, result.runs])).toEqual([['passed', 1]]);
  });

  it('reports a server that serves the request without it', async () => {
    const { failures } = await run(itemsServer({ ignoresTenant: true }), 'missing_required_header');
    expect(failures).toEqual(['without its required header X-Tenant the request was answered 200']);
  });
});

describe('allow_header_conformance', () => {
  it("holds for a 405 whose Allow names the path's methods", async () => {
    const { results, failures } = await run(itemsServer({}), 'allow_header_conformance');
    expect(failures).toEqual([]);
    // PUT, POST, DELETE and PATCH are each refused with 405.
    expect(results.map((result) => result.runs)).toEqual([4]);
  });

  it('reports a 405 without Allow, and one whose Allow leaves out a documented method', async () => {
    const without = await run(itemsServer({ allow: null }), 'allow_header_conformance');
    expect(without.failures).toEqual(['405 without an Allow header (documented: GET)']);
    const partial = await run(itemsServer({ allow: 'HEAD' }), 'allow_header_conformance');
    expect(partial.failures).toEqual(['405 with Allow "HEAD", not naming GET']);
  });
});
