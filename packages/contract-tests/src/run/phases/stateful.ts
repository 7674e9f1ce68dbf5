// The stateful phase: follows the spec's OpenAPI links from every operation that creates something.
// After a successful call, each link's parameters are evaluated (runtime expressions such as
// `$response.body#/id`) and its target called:
//   - reads (GET) must answer 2xx: ensure_resource_availability;
//   - another tenant's read, change and delete must be refused with 403/404, and leave the resource
//     alive: tenant_isolation;
//   - changes and sub-resource creations (PUT, PATCH, POST) are called with generated valid bodies, and
//     their own links followed in turn;
//   - a successful delete is followed by the reads again: use_after_free (404/410, or a 2xx body that
//     matches a schema marked `x-resource-deleted: true`).
// Each check's rule is in checks.ts.
import { getByPointer, isObject, type Operation } from '@platform-api/validator';
import fc from 'fast-check';
import type { CallOptions, CallResult } from '../../client.js';
import { exampleRequest } from '../../examples.js';
import { positiveRequests } from '../requests.js';
import type { Session } from '../session.js';
import { requestBodySchema, sampleOne } from '../values/index.js';
import { uniqueValue } from './examples.js';
import { judgeCall } from './judge.js';

/** How deep chains of links are followed (create → sub-resource → its links). */
const MAX_DEPTH = 2;

interface Link {
  name: string;
  target: Operation;
  parameters: Record<string, unknown>;
}

export async function statefulPhase(session: Session): Promise<void> {
  const roots = session.operations.filter(
    (operation) =>
      !operation.parameters.some((parameter) => parameter.node.in === 'path') &&
      Object.values(operation.responses).some((response) => isObject(response.links)),
  );
  for (const [index, root] of roots.entries()) {
    for (const request of rootRequests(session, root, session.seed + index)) {
      const result = await session.call(root, request);
      judgeCall(session, result, { valid: true });
      if (result.status >= 200 && result.status < 300) await follow(session, result, 0);
    }
  }
}

/** The spec's example first, then generated valid requests; all made unique to the run. */
function rootRequests(session: Session, root: Operation, seed: number): CallOptions[] {
  const runs = Math.max(1, Math.min(5, Math.ceil(session.maxExamples / 20)));
  const requests: CallOptions[] = [];
  try {
    requests.push(exampleRequest(session.validator, root));
  } catch {
    // No complete example: generated requests only.
  }
  const generated = fc.sample(positiveRequests(session.validator, root, session.text), {
    numRuns: runs,
    seed,
  });
  requests.push(...generated.map((request) => request.options));
  const body = requestBodySchema(root);
  return requests
    .slice(0, runs)
    .map((request) =>
      body && isObject(request.body)
        ? { ...request, body: uniqueValue(session.validator, body.schema, request.body, session.uniqueTag()) }
        : request,
    );
}

async function follow(session: Session, source: CallResult, depth: number): Promise<void> {
  const links = linksOf(session, source);
  const reads = links.filter((link) => link.target.method === 'get');
  const changes = links.filter((link) => ['put', 'patch', 'post'].includes(link.target.method));
  const deletes = links.filter((link) => link.target.method === 'delete');

  for (const link of reads) {
    const result = await session.call(link.target, linkRequest(session, link));
    session.checkResponse(result);
    session.judge('ensure_resource_availability', evidenceOf(result), {
      context: `the link ${link.name} of ${source.operation.operationId}'s ${source.status}`,
    });
  }

  const created = `of what ${source.operation.operationId} created`;
  if (session.otherTenant) {
    const client = session.otherTenant;
    for (const link of [...reads, ...changes.filter((l) => l.target.method !== 'post'), ...deletes]) {
      const result = await session.call(link.target, linkRequest(session, link), client);
      session.checkResponse(result, client);
      session.judge(
        'tenant_isolation',
        { ...evidenceOf(result), otherTenant: true },
        { context: created, client },
      );
    }
    for (const link of reads) {
      const result = await session.call(link.target, linkRequest(session, link));
      session.judge('tenant_isolation', evidenceOf(result), {
        context: `after another tenant's change and delete attempts ${created}`,
      });
    }
  } else {
    session.skip(
      'tenant_isolation',
      source.operation.operationId,
      'no second tenant given (--other-client-id)',
    );
  }

  for (const link of changes) {
    const result = await session.call(link.target, linkRequest(session, link));
    judgeCall(session, result, { valid: true });
    if (result.status >= 200 && result.status < 300 && depth < MAX_DEPTH)
      await follow(session, result, depth + 1);
  }

  for (const link of deletes) {
    const result = await session.call(link.target, linkRequest(session, link));
    judgeCall(session, result, { valid: true });
    if (result.status < 200 || result.status >= 300) continue;
    for (const read of reads) {
      const after = await session.call(read.target, linkRequest(session, read));
      session.checkResponse(after);
      session.judge('use_after_free', evidenceOf(after), {
        context: `after ${link.target.operationId} answered ${result.status}`,
      });
    }
  }
}

const evidenceOf = (result: CallResult) => ({
  operation: result.operation,
  request: result.request,
  answer: result,
});

/** The links of the documented response a result's status falls under, their parameters evaluated. */
function linksOf(session: Session, source: CallResult): Link[] {
  const response =
    source.operation.responses[String(source.status)] ??
    source.operation.responses[`${String(source.status)[0]}XX`];
  if (!response || !isObject(response.links)) return [];
  const links: Link[] = [];
  for (const [name, raw] of Object.entries(response.links)) {
    const link = session.validator.resolve({ node: raw, pointer: '' }).node;
    if (typeof link.operationId !== 'string') continue;
    const target = session.operations.find((operation) => operation.operationId === link.operationId);
    if (!target) continue;
    const parameters: Record<string, unknown> = {};
    let complete = true;
    for (const [parameter, expression] of Object.entries(isObject(link.parameters) ? link.parameters : {})) {
      const value = evaluate(expression, source);
      if (value === undefined) complete = false;
      parameters[parameter.replace(/^(path|query|header)\./, '')] = value;
    }
    if (complete) links.push({ name, target, parameters });
  }
  return links;
}

/** OpenAPI runtime expressions (`$response.body#/id`, `$request.path.id`, …); constants as they are. */
function evaluate(expression: unknown, source: CallResult): unknown {
  if (typeof expression !== 'string' || !expression.startsWith('$')) return expression;
  const [, where, rest] = /^\$(request|response)\.(.*)$/.exec(expression) ?? [];
  if (expression === '$statusCode') return source.status;
  if (where === 'response') {
    if (rest?.startsWith('body')) return getByPointer(source.json, rest.slice('body#'.length) || '');
    if (rest?.startsWith('header.')) return source.headers.get(rest.slice('header.'.length)) ?? undefined;
    return undefined;
  }
  if (where === 'request' && rest) {
    const url = new URL(source.request.url);
    if (rest.startsWith('path.')) return pathValue(source, url, rest.slice('path.'.length));
    if (rest.startsWith('query.')) return url.searchParams.get(rest.slice('query.'.length)) ?? undefined;
    if (rest.startsWith('header.')) return source.request.headers[rest.slice('header.'.length).toLowerCase()];
    if (rest.startsWith('body') && typeof source.request.body === 'string') {
      try {
        return getByPointer(JSON.parse(source.request.body), rest.slice('body#'.length) || '');
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function pathValue(source: CallResult, url: URL, name: string): string | undefined {
  const names = [...source.operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const pattern = new RegExp(`${source.operation.path.replace(/\{[^}]+\}/g, '([^/]+)')}$`);
  const index = names.indexOf(name);
  const value = index >= 0 ? pattern.exec(url.pathname)?.[index + 1] : undefined;
  return value === undefined ? undefined : decodeURIComponent(value);
}

/** The link's parameters, everything else the target needs generated (valid), bodies unique to the run. */
function linkRequest(session: Session, link: Link): CallOptions {
  const generated = sampleOne(
    positiveRequests(session.validator, link.target, session.text),
    session.seed + session.requests,
  );
  const request: CallOptions = { ...generated.options };
  request.path = { ...request.path };
  request.query = { ...request.query };
  for (const [name, value] of Object.entries(link.parameters)) {
    const parameter = link.target.parameters.find((candidate) => candidate.node.name === name);
    if (parameter?.node.in === 'query') request.query[name] = String(value);
    else request.path[name] = String(value);
  }
  const body = requestBodySchema(link.target);
  if (body && request.body !== undefined) {
    // A body whose media type JSON Schema cannot describe fully (CSV rows that match the columns) comes
    // from the spec's example; JSON bodies are generated.
    if (!body.mediaType.includes('json') && body.mediaType !== 'application/x-www-form-urlencoded') {
      try {
        const example = exampleRequest(session.validator, link.target);
        request.body = example.body;
        request.contentType = example.contentType;
      } catch {
        // No example: keep the generated body.
      }
    } else if (isObject(request.body)) {
      request.body = uniqueValue(session.validator, body.schema, request.body, session.uniqueTag());
    }
  }
  return request;
}
