// The stateful phase: follows the spec's OpenAPI links from every operation that creates something.
// After a successful call, each link's parameters are evaluated (runtime expressions such as
// `$response.body#/id`) and its target called:
//   - reads (GET) must answer 2xx: ensure_resource_availability;
//   - another tenant's read, change and delete must be refused with 403/404, and leave the resource
//     alive: tenant_isolation;
//   - a create's answer and its reads show what it sent, a change's reads what the change sent
//     (update_persisted, writes.ts);
//   - changes and sub-resource creations (PUT, PATCH, POST) are called with generated valid bodies (a CSV
//     body with records that fit the item, writes.ts), and their own links followed in turn;
//   - a create's answer and its reads hold a declared secret as the spec says: signing_secret;
//   - a successful delete is followed by the reads again: use_after_free (404/410, or a 2xx body that
//     matches a schema marked `x-resource-deleted: true`).
// Each check's rule is in checks.ts.
import { isObject, type Operation } from '@platform-api/validator';
import fc from 'fast-check';
import type { CallOptions, CallResult } from '../../client.js';
import { exampleRequest } from '../../examples.js';
import { creationRoots, linkRequest, linksOf } from '../links.js';
import { positiveRequests } from '../requests.js';
import { DEFAULT_MAX_EXAMPLES, type Session } from '../session.js';
import { requestBodySchema } from '../values/index.js';
import { resolveSchema } from '../values/schemas.js';
import { uniqueValue } from './examples.js';
import { judgeCall } from './judge.js';
import { createdListed, deletedNotListed, walkCreatedLists } from './pagination.js';
import { checkCreatedSecret, checkReadSecret } from './secrets.js';
import {
  checkFittingWrite,
  checkMisfitRefused,
  checkUniqueConflict,
  checkUpdatePersisted,
  fittingWrite,
} from './writes.js';

/** How deep chains of links are followed (create → sub-resource → its links). */
const MAX_DEPTH = 2;

export async function statefulPhase(session: Session): Promise<void> {
  // Three chains per create at the default budget, fewer or more (1 to 5) as --max-examples moves it.
  const runs = Math.max(1, Math.min(5, Math.round((3 * session.maxExamples) / DEFAULT_MAX_EXAMPLES)));
  for (const [index, root] of creationRoots(session).entries()) {
    // Requests are tried until `runs` of them created something: a valid request a server may still
    // refuse (the example's channel ids exist on no real server) leaves nothing to follow.
    // The generated ones send each optional boolean true and false in turn, by the creates that succeeded:
    // a request a server rightly refuses does not use up a value's turn.
    let created = 0;
    let flagged = 0;
    for (const [at, request] of rootRequests(session, root, session.seed + index, runs * 4).entries()) {
      if (created === runs) break;
      const sent = at === 0 ? request : withBooleans(session, root, request, flagged % 2 === 0);
      const result = await session.call(root, sent);
      judgeCall(session, result, { valid: true });
      if (result.status < 200 || result.status >= 300) continue;
      created += 1;
      if (at > 0) flagged += 1;
      checkCreatedSecret(session, result);
      await checkUniqueConflict(session, result, sent);
      await follow(session, result, 0);
    }
  }
}

/** The spec's example first, then generated valid requests, `count` in all; all made unique to the run. */
function rootRequests(session: Session, root: Operation, seed: number, count: number): CallOptions[] {
  const requests: CallOptions[] = [];
  try {
    requests.push(exampleRequest(session.validator, root));
  } catch {
    // No complete example: generated requests only.
  }
  const generated = fc.sample(positiveRequests(session.validator, root, session.text), {
    numRuns: count,
    seed,
  });
  requests.push(...generated.map((request) => request.options));
  const body = requestBodySchema(root);
  return requests.slice(0, count).map((request) => {
    if (!body || !isObject(request.body)) return request;
    return {
      ...request,
      body: uniqueValue(session.validator, body.schema, request.body, session.uniqueTag()),
    };
  });
}

/**
 * The request with each optional boolean property its body's schema lists set to `value`, so that
 * update_persisted reads both back (a flag a server ignores, or stores one way only, is seen whichever way
 * the generator leans). Unchanged if that breaks the schema.
 */
function withBooleans(session: Session, root: Operation, request: CallOptions, value: boolean): CallOptions {
  const body = requestBodySchema(root);
  if (!body || !isObject(request.body)) return request;
  const located = resolveSchema(session.validator, body.schema);
  const { properties, required } = located.node;
  const flags = Object.entries(isObject(properties) ? properties : {})
    .filter(([name]) => !(Array.isArray(required) && required.includes(name)))
    .filter(
      ([, property]) =>
        resolveSchema(session.validator, { node: property, pointer: '' }).node.type === 'boolean',
    )
    .map(([name]) => name);
  if (flags.length === 0) return request;
  const changed = { ...request.body, ...Object.fromEntries(flags.map((name) => [name, value])) };
  return session.validator.validateAt(located.pointer, changed).length === 0
    ? { ...request, body: changed }
    : request;
}

async function follow(session: Session, source: CallResult, depth: number): Promise<void> {
  const links = linksOf(session, source);
  const reads = links.filter((link) => link.target.method === 'get');
  const changes = links.filter((link) => ['put', 'patch', 'post'].includes(link.target.method));
  const deletes = links.filter((link) => link.target.method === 'delete');
  // What a create made shows what it was sent: in the create's answer and in its reads.
  if (source.operation.method === 'post')
    await checkUpdatePersisted(session, source, reads, { created: true });

  for (const link of reads) {
    const result = await session.call(link.target, linkRequest(session, link));
    session.checkResponse(result);
    checkReadSecret(session, source, result);
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
    const fitting = await fittingWrite(session, link, reads);
    const result = await session.call(link.target, fitting?.request ?? linkRequest(session, link));
    judgeCall(session, result, { valid: true });
    if (fitting) await checkFittingWrite(session, result, fitting, reads);
    if (result.status < 200 || result.status >= 300) continue;
    if (fitting) await checkMisfitRefused(session, fitting, link.target);
    await checkUpdatePersisted(session, result, reads);
    if (depth < MAX_DEPTH) await follow(session, result, depth + 1);
  }

  // While what the source made exists: its lists walked.
  await walkCreatedLists(session, source, links);
  for (const link of deletes) {
    const request = linkRequest(session, link);
    await createdListed(session, link.target, stringValues(request.path));
    const result = await session.call(link.target, request);
    judgeCall(session, result, { valid: true });
    if (result.status < 200 || result.status >= 300) continue;
    await deletedNotListed(session, result);
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

const stringValues = (values: Record<string, unknown> = {}) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value)]));
