// pagination_semantics and deleted_not_listed: lists walked page by page where the run has made items
// (after a create, before its deletes; in the site's content scenarios), and a deleted item looked for
// in its collection — the GET on its path's parent — with the same walker (../lists.ts).
import type { Operation, SpecValidator } from '@platform-api/validator';
import type { CallOptions, CallResult, ContractClient } from '../../client.js';
import { type Link, linkRequest } from '../links.js';
import {
  isListedDeleted,
  itemId,
  type ListShape,
  listShape,
  orderById,
  pagingOf,
  type Walk,
  walkList,
  walkProblems,
} from '../lists.js';
import { positiveRequests } from '../requests.js';
import type { Session } from '../session.js';
import { sampleOne } from '../values/index.js';

/** Pages of the smallest size walked, then pages of the usual size to reach the end. */
const SMALL_PAGES = 4;
const USUAL_PAGES = 8;
/** Pages of the usual size an item is looked for in its collection. */
const COLLECTION_PAGES = 20;

/** The list operations walked in a run: each once, however many items its collection gets. */
const walked = new WeakMap<Session, Set<string>>();

/**
 * Walks a paged list (once per run): pages of the smallest size first, then of the usual size to its
 * end, each page judged by pagination_semantics. Sorted by id where the operation offers it, so that ties
 * (WordPress's dates) cannot reorder items between pages.
 */
export async function paginationSemantics(
  session: Session,
  operation: Operation,
  base: CallOptions,
  client: ContractClient = session.client,
): Promise<void> {
  const paging = pagingOf(client.validator, operation);
  const judged = session.enabled('pagination_semantics', operation.operationId);
  if (!paging || (!judged && !session.enabled('listed_readable'))) return;
  const done = walked.get(session) ?? new Set<string>();
  walked.set(session, done);
  if (done.has(operation.operationId)) return;
  done.add(operation.operationId);
  const request = listRequest(session, client.validator, operation, {
    path: base.path,
    query: { ...base.query, ...orderById(client.validator, operation) },
  });
  const small = await walkList(session, operation, request, {
    size: paging.smallest,
    maxPages: SMALL_PAGES,
    client,
  });
  const [first] = small.pages;
  if (first?.items === undefined) {
    session.skip('pagination_semantics', operation.operationId, `its first page answered ${first?.status}`);
    return;
  }
  await listedReadable(session, operation, request, first.items, client);
  if (!judged) return;
  let failed = judgeWalk(session, small, client);
  const last = small.pages.at(-1)?.items;
  const cut = small.pages.length === SMALL_PAGES && last !== undefined && last.length >= small.size;
  if (!failed && cut && paging.usual > paging.smallest) {
    const usual = await walkList(session, operation, request, { maxPages: USUAL_PAGES, client });
    failed = judgeWalk(session, usual, client);
  }
  if (!failed) session.pass('pagination_semantics', operation);
}

/**
 * listed_readable: the first and last item of a list's first page, read by the GET on the list's path and
 * the item's id (`/users` → `/users/{id}`), answer 2xx. Items listed in the deleted form are not read.
 */
async function listedReadable(
  session: Session,
  list: Operation,
  request: CallOptions,
  items: unknown[],
  client: ContractClient,
): Promise<void> {
  const { validator } = client;
  const item = validator.operations.find(
    (operation) =>
      operation.kind === 'path' &&
      operation.method === 'get' &&
      operation.path.startsWith(`${list.path}/{`) &&
      /^\{[^/}]+\}$/.test(operation.path.slice(list.path.length + 1)),
  );
  const shape = listShape(validator, list);
  if (!item || !shape || !session.enabled('listed_readable', item.operationId)) return;
  const name = item.path.slice(list.path.length + 2, -1);
  for (const listed of new Set([items[0], items.at(-1)])) {
    const id = itemId(listed);
    if (id === undefined || isListedDeleted(validator, shape, listed)) continue;
    const read = listRequest(session, validator, item, { path: { ...request.path, [name]: id } });
    const result = await session.call(item, read, client);
    session.checkResponse(result, client);
    session.judge(
      'listed_readable',
      { operation: item, request: result.request, answer: result },
      { context: `listed by ${list.operationId}`, client },
    );
  }
}

/** Records a walk's problems under pagination_semantics; returns whether it had any. */
function judgeWalk(session: Session, walk: Walk, client: ContractClient): boolean {
  const problems = walkProblems(walk);
  for (const { page, problem } of problems) {
    const result = walk.pages[page]?.result as CallResult;
    session.fail(
      'pagination_semantics',
      walk.operation,
      `${problem} (pages of ${walk.size})`,
      { request: result.request, answer: result },
      client,
    );
  }
  return problems.length > 0;
}

/** An item's collection (the GET on the parent of `…/{id}`) walked from its first page, and the item's id. */
async function walkCollectionOf(
  session: Session,
  item: Operation,
  itemPath: Record<string, string>,
  client: ContractClient,
): Promise<{ list: Operation; shape: ListShape; id: string; walk: Walk } | undefined> {
  const { validator } = client;
  const segments = item.path.split('/');
  const name = /^\{([^}]+)\}$/.exec(segments.at(-1) ?? '')?.[1];
  const parent = segments.slice(0, -1).join('/');
  const list = validator.operations.find(
    (operation) => operation.kind === 'path' && operation.method === 'get' && operation.path === parent,
  );
  const shape = list && listShape(validator, list);
  if (!name || !list || !shape) return undefined;
  const { [name]: id, ...path } = itemPath;
  if (id === undefined) return undefined;
  const request = listRequest(session, validator, list, { path, query: orderById(validator, list) });
  const walk = await walkList(session, list, request, { maxPages: COLLECTION_PAGES, client });
  return { list, shape, id, walk };
}

/**
 * created_listed: while an item a create made exists (`…/{id}`, before its delete), its collection lists
 * it. A walk cut short by its page budget before the collection's end decides nothing.
 */
export async function createdListed(
  session: Session,
  item: Operation,
  itemPath: Record<string, string>,
): Promise<void> {
  const collection = await walkCollectionOf(session, item, itemPath, session.client);
  if (!collection || !session.enabled('created_listed', collection.list.operationId)) return;
  const { list, id, walk } = collection;
  const last = walk.pages.at(-1);
  if (last?.items === undefined) {
    session.skip('created_listed', list.operationId, `a page answered ${last?.status}`);
    return;
  }
  if (walk.pages.some((page) => page.items?.some((listed) => itemId(listed) === id)))
    session.pass('created_listed', list);
  else if (!walk.paging || last.items.length < walk.size)
    session.fail(
      'created_listed',
      list,
      `${list.operationId}, walked to its end, does not list ${id}, which ${item.operationId} reads`,
      { request: last.result.request, answer: last.result },
    );
}

/**
 * deleted_not_listed: after a successful delete of an item (`DELETE …/{id}`), the GET on the parent path
 * — its collection — no longer lists it, or lists it only in the spec's deleted form.
 */
export async function deletedNotListed(
  session: Session,
  deleted: CallResult,
  client: ContractClient = session.client,
): Promise<void> {
  const itemPath = pathParameters(deleted.operation, deleted.request.url);
  const collection = await walkCollectionOf(session, deleted.operation, itemPath, client);
  if (!collection || !session.enabled('deleted_not_listed', collection.list.operationId)) return;
  const { list, shape, id, walk } = collection;
  const item = deleted.operation;
  const [first] = walk.pages;
  if (first?.items === undefined) {
    session.skip('deleted_not_listed', list.operationId, `its first page answered ${first?.status}`);
    return;
  }
  for (const page of walk.pages) {
    const live = (page.items ?? []).find(
      (listed) => itemId(listed) === id && !isListedDeleted(client.validator, shape, listed),
    );
    if (live === undefined) continue;
    session.fail(
      'deleted_not_listed',
      list,
      `${list.operationId} still lists what ${item.operationId} deleted (answered ${deleted.status}), not in a deleted form`,
      { request: page.result.request, answer: page.result },
      client,
    );
    return;
  }
  session.pass('deleted_not_listed', list);
}

/**
 * A list's request: `base`, and the parameters the operation requires (generated, valid) — no optional
 * filter, so that the whole collection is listed.
 */
function listRequest(
  session: Session,
  validator: SpecValidator,
  operation: Operation,
  base: CallOptions,
): CallOptions {
  const generated = sampleOne(positiveRequests(validator, operation, session.text), session.seed);
  const required = <T>(where: string, values: Record<string, T> | undefined): Record<string, T> =>
    Object.fromEntries(
      Object.entries(values ?? {}).filter(([name]) =>
        operation.parameters.some(
          (parameter) =>
            parameter.node.in === where && parameter.node.name === name && parameter.node.required === true,
        ),
      ),
    );
  return {
    path: { ...generated.options.path, ...base.path },
    query: { ...required('query', generated.options.query), ...base.query },
    headers: { ...required('header', generated.options.headers), ...base.headers },
  };
}

/** The path parameters of a request to a templated path, by name. */
export function pathParameters(operation: Operation, url: string): Record<string, string> {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  const pattern = new RegExp(`${operation.path.replace(/\{[^}]+\}/g, '([^/]+)')}$`);
  const values = pattern.exec(new URL(url).pathname) ?? [];
  const parameters: Record<string, string> = {};
  for (const [index, name] of names.entries()) {
    const value = values[index + 1];
    if (value !== undefined) parameters[name] = decodeURIComponent(value);
  }
  return parameters;
}

/**
 * After a create: its collection (the GET on the create's path) and the paged lists its links read are
 * walked while what it made exists. A list the create's links can add to (a POST on the list's path) first
 * gets enough items for two pages.
 */
export async function walkCreatedLists(
  session: Session,
  source: CallResult,
  links: readonly Link[],
): Promise<void> {
  if (!session.enabled('pagination_semantics') && !session.enabled('listed_readable')) return;
  const collection = session.operations.find(
    (operation) => operation.method === 'get' && operation.path === source.operation.path,
  );
  const path = pathParameters(source.operation, source.request.url);
  const lists = links
    .filter((link) => link.target.method === 'get' && pagingOf(session.validator, link.target))
    .map((link) => ({ operation: link.target, path: linkRequest(session, link).path ?? {} }));
  if (collection) lists.unshift({ operation: collection, path });
  for (const { operation, path: listPath } of lists) {
    const paging = pagingOf(session.validator, operation);
    if (!paging || walked.get(session)?.has(operation.operationId)) continue;
    const adds = links.filter((link) => link.target.method === 'post' && link.target.path === operation.path);
    for (const add of adds.slice(0, 1))
      for (let count = 0; count <= paging.smallest; count += 1) {
        const result = await session.call(add.target, linkRequest(session, add));
        session.checkResponse(result);
      }
    await paginationSemantics(session, operation, { path: listPath });
  }
}

/** Records a skip, with `reason`, for every paged list of the spec the run did not walk. */
export function skipUnwalked(session: Session, validator: SpecValidator, reason: string): void {
  for (const operation of validator.operations) {
    if (operation.kind !== 'path' || !pagingOf(validator, operation)) continue;
    if (!walked.get(session)?.has(operation.operationId))
      session.skip('pagination_semantics', operation.operationId, reason);
  }
}
