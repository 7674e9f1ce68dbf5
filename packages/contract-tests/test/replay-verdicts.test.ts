// Replay judges as the run judges: a run against a small server that is wrong in every way an answer can
// show (one fault per check), its report written and read back, and every failure in it replayed — the
// replayed request must fail its check again with the run's own problem. The platform's planted defects
// (test/platform/replay.test.ts) show the same on the reference server, for the checks it plants.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHECK_NAMES,
  CHECKS,
  ContractClient,
  casesOf,
  type OpenApiDocument,
  type ReportFile,
  readReportFile,
  requestOf,
  runContractTests,
  SpecValidator,
  writeReportFile,
} from '../src/index.js';
import { replayFailure } from '../src/replay.js';

const item = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
};
const itemPath = { name: 'id', in: 'path', required: true, schema: { type: 'integer' }, example: 1 };
const itemLink = (operationId: string) => ({ operationId, parameters: { id: '$response.body#/id' } });
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

const spec = {
  openapi: '3.1.0',
  info: { title: 'items', version: '1' },
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer' },
      oauth: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: '/token', scopes: { items: 'items', owners: 'owners' } } },
      },
    },
  },
  security: [{ bearer: [] }],
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'X-Request-Id', in: 'header', required: true, schema: { type: 'string' }, example: 'r1' },
          {
            name: 'limit',
            in: 'query',
            required: true,
            schema: { type: 'integer', minimum: 1, maximum: 100 },
            example: 10,
          },
          { name: 'tag', in: 'query', schema: { type: 'string', enum: ['a', 'b'] } },
          { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
        ],
        responses: {
          '200': {
            description: 'the items',
            headers: { 'X-Total-Count': { required: true, schema: { type: 'integer' } } },
            ...json({ type: 'array', items: item }),
          },
          '400': { description: 'a bad request' },
          '401': { description: 'no credentials' },
        },
      },
      post: {
        operationId: 'createItem',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: { name: { type: 'string', minLength: 1, maxLength: 20 } },
                additionalProperties: false,
              },
              example: { name: 'one' },
            },
          },
        },
        responses: {
          '201': {
            description: 'created',
            ...json(item),
            links: {
              GetItem: itemLink('getItem'),
              GetOwner: itemLink('getItemOwner'),
              DeleteItem: itemLink('deleteItem'),
            },
          },
          '400': { description: 'a bad request' },
          '401': { description: 'no credentials' },
          '413': { description: 'too large' },
          '415': { description: 'not JSON' },
        },
      },
    },
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [itemPath],
        responses: {
          '200': { description: 'the item', ...json(item) },
          '401': { description: 'no credentials' },
          '403': { description: 'not yours' },
          '404': { description: 'no such item' },
        },
      },
      delete: {
        operationId: 'deleteItem',
        parameters: [itemPath],
        responses: {
          '204': { description: 'deleted' },
          '400': { description: 'a bad request' },
          '401': { description: 'no credentials' },
          '403': { description: 'not yours' },
          '404': { description: 'no such item' },
        },
      },
    },
    '/items/{id}/owner': {
      get: {
        operationId: 'getItemOwner',
        parameters: [itemPath],
        security: [{ oauth: ['owners'] }],
        responses: {
          '200': { description: 'the owner', ...json({ type: 'object' }) },
          '401': { description: 'no credentials' },
        },
      },
    },
  },
} as unknown as OpenApiDocument;

/** The run's bearer tokens, as the report's placeholders name them. */
const SECRETS = { TOKEN: 'tok-a', OTHER_TOKEN: 'tok-b' };
/** A token of the run's client without the `owners` scope (scope_enforcement). */
const NARROWED = 'tok-c';
const TOKENS = [...Object.values(SECRETS), NARROWED];

/** The server, wrong on purpose: each line of it is the fault of one check (or two). */
function wrongServer(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const url = new URL(request.url ?? '/', 'http://items');
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      if (body === undefined) response.writeHead(status, headers).end();
      else
        response
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify(body));
    };
    const { pathname, searchParams } = url;
    // trailing_slash
    if (pathname.endsWith('/')) return send(500, { error: 'no route' });
    // head_matches_get
    if (request.method === 'HEAD') return send(404);
    if (pathname === '/items') {
      if (request.method === 'GET') {
        // repeated_query_parameters
        if ([...searchParams.keys()].length !== new Set(searchParams.keys()).size) return send(500);
        // not_a_server_error
        if (searchParams.get('limit') === '100') return send(500, { error: 'boom' });
        // positive_data_acceptance
        if (searchParams.get('tag') === 'a') return send(400);
        // content_type_conformance
        if (searchParams.get('tag') === 'b')
          return response.writeHead(200, { 'content-type': 'text/plain' }).end('[]');
        // response_headers_conformance (no X-Total-Count); ignored_auth and missing_required_header: no
        // credentials or X-Request-Id asked for; listed_readable: item 0 is listed, and not served.
        return send(200, [{ id: 0, name: 'zero' }]);
      }
      // negative_data_rejection, malformed_json_body, unsupported_media_type, oversized_body: any body
      // is taken.
      if (request.method === 'POST') return send(201, { id: 7, name: 'seven' });
      // unsupported_method
      if (request.method === 'PUT') return send(404);
      // allow_header_conformance
      return send(405);
    }
    // auth_scheme_case: only "Bearer" with an exact token.
    if (!TOKENS.some((token) => request.headers.authorization === `Bearer ${token}`)) return send(401);
    const owner = /^\/items\/\d+\/owner$/.exec(pathname);
    // status_code_conformance and ensure_resource_availability; scope_enforcement: any token's scopes do
    if (owner) return send(404, { error: 'no owner' });
    // integer_spelling: the id is read as parseInt reads it (`5abc` is item 5).
    const id = Number.parseInt(pathname.split('/')[2] ?? '', 10);
    if (!/^\/items\/[^/]+$/.test(pathname) || Number.isNaN(id) || id === 0) return send(404);
    // response_schema_conformance (no name), use_after_free and tenant_isolation: every item is served to
    // anyone, deleted or not.
    if (request.method === 'GET') return send(200, { id });
    if (request.method === 'DELETE')
      // empty_json_body
      return request.headers['content-type'] ? send(400) : send(204);
    return send(405, undefined, { allow: 'GET, DELETE' });
  });
}

describe('replay judges every check as the run does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-verdicts-'));
  // Coverage sends control characters in header values, which node:http's strict parser refuses.
  const server = createServer({ insecureHTTPParser: true, keepAliveTimeout: 60_000 }, wrongServer);
  const validator = new SpecValidator(spec);
  let baseUrl: string;
  let report: ReportFile;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const run = await runContractTests({
      api: 'items',
      target: baseUrl,
      validator,
      client: new ContractClient({ validator, baseUrl, credentials: { bearer: SECRETS.TOKEN } }),
      otherTenant: new ContractClient({ validator, baseUrl, credentials: { bearer: SECRETS.OTHER_TOKEN } }),
      phases: ['examples', 'coverage', 'fuzz', 'stateful', 'transport'],
      // Only what replay can judge: the server is wrong in ways several answers show too.
      checks: CHECK_NAMES.filter((name) => CHECKS[name].judge !== undefined),
      maxExamples: 10,
      seed: 1,
      scopes: {
        granted: ['items', 'owners'],
        clientFor: async () => new ContractClient({ validator, baseUrl, credentials: { bearer: NARROWED } }),
      },
      transport: { oversizedBodyBytes: 64 * 1024 },
    });
    expect(run.fatal).toBeUndefined();
    writeReportFile(join(dir, 'report.json'), run);
    report = readReportFile(join(dir, 'report.json'));
  }, 60_000);

  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the run fails every check an answer can show', () => {
    const judged = CHECK_NAMES.filter((name) => CHECKS[name].judge !== undefined);
    expect([...new Set(casesOf(report).map((failure) => failure.check))].sort()).toEqual([...judged].sort());
  });

  it('each failure, replayed, fails again with the problem the run reported', async () => {
    const client = new ContractClient({ validator, baseUrl });
    const differing: string[] = [];
    for (const failure of casesOf(report)) {
      const request = requestOf(failure.request, SECRETS);
      const { problems } = await replayFailure(validator, failure, request, (outgoing) =>
        client.send(outgoing),
      );
      // The run adds what it knew of why it sent the request in parentheses.
      const same = problems.some(
        (problem) => failure.message === problem || failure.message.startsWith(`${problem} (`),
      );
      if (!same)
        differing.push(
          `${failure.check} ${failure.operationId}: ${failure.message} ≠ ${problems.join(' | ') || 'passes'}`,
        );
    }
    expect(differing).toEqual([]);
  }, 60_000);

  it('refuses the checks an answer alone cannot show: webhook deliveries, scenarios, the time budget, what several answers show together', async () => {
    const [failure] = casesOf(report);
    if (!failure) throw new Error('the run reported nothing');
    const unjudged = CHECK_NAMES.filter((name) => CHECKS[name].judge === undefined);
    expect(unjudged.sort()).toEqual([
      'callback_accepted',
      'created_listed',
      'deleted_not_listed',
      'max_response_time',
      'pagination_semantics',
      'request_body_conformance',
      'request_headers_conformance',
      'signing_secret',
      'site_scenario',
      'unique_conflict',
      'update_persisted',
    ]);
    for (const check of unjudged) {
      const replayed = replayFailure(
        validator,
        { ...failure, check },
        requestOf(failure.request, SECRETS),
        () => {
          throw new Error('nothing is sent for a check replay cannot judge');
        },
      );
      await expect(replayed).rejects.toThrow('cannot be replayed');
    }
  });
});

describe('a verdict names the real cause of an answer', () => {
  const validator = new SpecValidator(spec);
  const operation = validator.operation('getItem');
  const request = { method: 'GET', url: 'http://items/items/1', headers: {} };
  const verdict = (
    check: 'use_after_free' | 'tenant_isolation',
    status: number,
    body: unknown,
    otherTenant = false,
  ) =>
    CHECKS[check].judge?.({
      validator,
      operation,
      request,
      answer: {
        status,
        headers: new Headers({ 'content-type': 'application/json' }),
        text: JSON.stringify(body),
        json: body,
      },
      otherTenant,
    });

  it('use_after_free: a refusal of the read is a refusal, with its message, not a live resource', () => {
    expect(verdict('use_after_free', 400, { status: 400, message: 'The id  is\nnot valid.' })).toEqual([
      'getItem answered 400 (a refusal, neither 404/410 nor the deleted form): The id is not valid.',
    ]);
    expect(verdict('use_after_free', 500, { detail: 'x'.repeat(200) })).toEqual([
      `getItem answered 500 (a server error, neither 404/410 nor the deleted form): ${'x'.repeat(160)}…`,
    ]);
    expect(verdict('use_after_free', 200, { id: 1, name: 'one' })).toEqual([
      'getItem answered 200 with a live resource',
    ]);
    expect(verdict('use_after_free', 404, {})).toEqual([]);
  });

  it('tenant_isolation: the other tenant refused for another reason, and the owner refused its own', () => {
    expect(verdict('tenant_isolation', 400, { message: 'Bad id.' }, true)).toEqual([
      "another tenant's getItem answered 400 (a refusal, neither 403 nor 404): Bad id.",
    ]);
    expect(verdict('tenant_isolation', 200, { id: 1, name: 'one' }, true)).toEqual([
      "another tenant's getItem answered 200",
    ]);
    expect(verdict('tenant_isolation', 403, {}, true)).toEqual([]);
    expect(verdict('tenant_isolation', 400, { message: 'Bad id.' })).toEqual([
      "the owner's getItem answered 400 (a refusal, not the live resource): Bad id.",
    ]);
    expect(verdict('tenant_isolation', 200, { id: 1, name: 'one' })).toEqual([]);
  });
});
