// Lists as the spec pages them, walked page by page: which query parameters size and move a page
// (`limit`/`offset`, `per_page`/`page`, with their schemas' bounds and defaults), where a list body holds
// its items, what a page past the end answers, and the verdicts of a walk (pagination_semantics). The
// same walker finds a deleted item in its collection (deleted_not_listed).
import {
  isObject,
  type JsonObject,
  joinPointer,
  type Located,
  type Operation,
  type SpecValidator,
} from '@platform-api/validator';
import type { CallOptions, CallResult, ContractClient } from '../client.js';
import { deletedSchemas } from './checks.js';
import type { Session } from './session.js';

/** How a list operation pages, read from its query parameters. */
export interface Paging {
  /** The parameter that sizes a page (`limit`, `per_page`) and the one that moves it (`offset`, `page`). */
  size: string;
  position: string;
  /** `offset` counts items, `page` counts pages. */
  counts: 'items' | 'pages';
  /** The first position (offset 0, page 1). */
  first: number;
  /** The smallest page size the schema allows (at least 1), and the usual one (its default, else maximum). */
  smallest: number;
  usual: number;
  /** The status of a page past the last, where the spec declares one (`x-state: {pastEnd}`); else an empty list. */
  pastEnd?: number;
}

/** Where a list operation's items are: the body itself, or its one array property (`{channels: […]}`). */
export interface ListShape {
  property: string | undefined;
  /** The items' schema, for the deleted form (`x-resource-deleted`). */
  items: Located;
}

interface IntegerSchema {
  minimum?: number;
  maximum?: number;
  default?: number;
}

/** A query parameter's schema with its `allOf` parts merged (WordPress's `PerPageValue`), or undefined. */
function querySchema(validator: SpecValidator, operation: Operation, name: string): JsonObject | undefined {
  const parameter = operation.parameters.find((item) => item.node.in === 'query' && item.node.name === name);
  if (!parameter || !isObject(parameter.node.schema)) return undefined;
  const merge = (node: unknown, depth: number): JsonObject => {
    const schema = validator.resolve({ node, pointer: '' }).node;
    const parts = Array.isArray(schema.allOf) && depth < 4 ? schema.allOf : [];
    return Object.assign({}, ...parts.map((part) => merge(part, depth + 1)), schema);
  };
  return { ...merge(parameter.node.schema, 0), 'x-state': parameter.node['x-state'] };
}

function integerSchema(schema: JsonObject | undefined): IntegerSchema | undefined {
  if (schema?.type !== 'integer') return undefined;
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return {
    minimum: number(schema.minimum),
    maximum: number(schema.maximum),
    default: number(schema.default),
  };
}

/** How an operation pages, or undefined when it does not (or answers no list). */
export function pagingOf(validator: SpecValidator, operation: Operation): Paging | undefined {
  if (operation.method !== 'get' || !listShape(validator, operation)) return undefined;
  for (const [size, position, counts] of [
    ['limit', 'offset', 'items'],
    ['per_page', 'page', 'pages'],
  ] as const) {
    const sizeSchema = integerSchema(querySchema(validator, operation, size));
    const positionSchema = querySchema(validator, operation, position);
    const positionBounds = integerSchema(positionSchema);
    if (!sizeSchema || !positionBounds) continue;
    const largest = sizeSchema.maximum ?? Number.POSITIVE_INFINITY;
    const smallest = Math.min(Math.max(1, sizeSchema.minimum ?? 1), largest);
    const usual = Math.max(smallest, Math.min(sizeSchema.default ?? sizeSchema.maximum ?? smallest, largest));
    const state = positionSchema?.['x-state'];
    const pastEnd = isObject(state) && isObject(state.pastEnd) ? state.pastEnd.status : undefined;
    return {
      size,
      position,
      counts,
      first: positionBounds.minimum ?? (counts === 'items' ? 0 : 1),
      smallest,
      usual,
      ...(typeof pastEnd === 'number' ? { pastEnd } : {}),
    };
  }
  return undefined;
}

/** The list a GET answers on success: its body, or the one array property of an object body. */
export function listShape(validator: SpecValidator, operation: Operation): ListShape | undefined {
  const status = operation.successStatus;
  const content = status === undefined ? undefined : operation.responses[String(status)]?.content;
  if (!isObject(content)) return undefined;
  const mediaType = Object.keys(content).find((type) => type.includes('json'));
  const media = mediaType === undefined ? undefined : content[mediaType];
  if (mediaType === undefined || !isObject(media) || media.schema === undefined) return undefined;
  const pointer = joinPointer(operation.pointer, 'responses', String(status), 'content', mediaType, 'schema');
  const schema = validator.resolve({ node: media.schema, pointer });
  const itemsOf = (array: Located): Located | undefined => {
    const items = array.node.items;
    return isObject(items) ? { node: items, pointer: joinPointer(array.pointer, 'items') } : undefined;
  };
  if (schema.node.type === 'array') {
    const items = itemsOf(schema);
    return items && { property: undefined, items };
  }
  const properties = isObject(schema.node.properties) ? schema.node.properties : {};
  const arrays = Object.entries(properties)
    .map(([name, node]) => ({
      name,
      located: validator.resolve({ node, pointer: joinPointer(schema.pointer, 'properties', name) }),
    }))
    .filter(({ located }) => located.node.type === 'array');
  const [only] = arrays;
  if (arrays.length !== 1 || !only) return undefined;
  const items = itemsOf(only.located);
  return items && { property: only.name, items };
}

/** The query that sorts a list by id, where the operation offers it (WordPress's `orderby=id`). */
export function orderById(validator: SpecValidator, operation: Operation): Record<string, string> {
  const query: Record<string, string> = {};
  for (const parameter of operation.parameters) {
    const name = String(parameter.node.name);
    if (parameter.node.in !== 'query' || !/order|sort/i.test(name)) continue;
    const schema = querySchema(validator, operation, name);
    if (Array.isArray(schema?.enum) && schema.enum.includes('id')) query[name] = 'id';
  }
  return query;
}

/** The identity of a listed item: itself when it is an id, else its `id`. */
export function itemId(item: unknown): string | undefined {
  const id = isObject(item) ? item.id : item;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** One page of a walk: where it was asked for, what it answered, and the ids it listed. */
export interface WalkedPage {
  position: number;
  status: number;
  /** The page's items; undefined when the answer was no list. */
  items: unknown[] | undefined;
  result: CallResult;
}

export interface Walk {
  operation: Operation;
  paging: Paging | undefined;
  size: number;
  pages: WalkedPage[];
}

/**
 * Walks a list from its first page with pages of `size`, for at most `maxPages` requests: until a page
 * lists nothing, answers anything but a list, or lists only what earlier pages did (a window that does
 * not move). An operation that does not page is one request.
 */
export async function walkList(
  session: Session,
  operation: Operation,
  base: CallOptions,
  { size, maxPages, client = session.client }: { size?: number; maxPages: number; client?: ContractClient },
): Promise<Walk> {
  const { validator } = client;
  const paging = pagingOf(validator, operation);
  const shape = listShape(validator, operation);
  const pageSize = size ?? paging?.usual ?? 0;
  const walk: Walk = { operation, paging, size: pageSize, pages: [] };
  const seen = new Set<string>();
  for (let index = 0; index < (paging ? maxPages : 1); index += 1) {
    const position = paging ? paging.first + index * (paging.counts === 'items' ? pageSize : 1) : 0;
    const query = paging
      ? { ...base.query, [paging.size]: String(pageSize), [paging.position]: String(position) }
      : base.query;
    const result = await session.call(operation, { ...base, query }, client);
    session.checkResponse(result, client);
    const body = shape?.property === undefined ? result.json : (result.json as JsonObject)?.[shape.property];
    const items = result.status < 300 && Array.isArray(body) ? body : undefined;
    walk.pages.push({ position, status: result.status, items, result });
    if (!items || items.length === 0) break;
    const ids = items.map(itemId).filter((id) => id !== undefined);
    if (ids.length > 0 && ids.every((id) => seen.has(id))) break;
    for (const id of ids) seen.add(id);
  }
  return walk;
}

/** A page's position as the request named it (`offset=2`, `page=3`). */
export function positionLabel(walk: Pick<Walk, 'paging'>, page: Pick<WalkedPage, 'position'>): string {
  return walk.paging ? `${walk.paging.position}=${page.position}` : 'the list';
}

/**
 * What is wrong with a walk's pages (pure): a page larger than asked for, an item listed again (the window
 * did not move), items after a short page, and a page past the end other than the spec's: an empty list,
 * or the status it declares (`x-state: {pastEnd}`; an empty list where nothing is listed at all, as
 * WordPress answers an empty collection). Each problem names the page that shows it.
 */
export function walkProblems(
  walk: Pick<Walk, 'paging' | 'size'> & { pages: Array<Omit<WalkedPage, 'result'>> },
): Array<{ page: number; problem: string }> {
  const { paging, size, pages } = walk;
  if (!paging) return [];
  const problems: Array<{ page: number; problem: string }> = [];
  const firstSeen = new Map<string, number>();
  const at = (index: number) => positionLabel(walk, pages[index] as WalkedPage);
  let listed = 0;
  for (const [index, page] of pages.entries()) {
    const { items } = page;
    if (!items) {
      problems.push(...pastEndProblems(walk, index, listed));
      break;
    }
    if (items.length > size)
      problems.push({
        page: index,
        problem: `${at(index)} answered ${items.length} items, more than ${paging.size}=${size}`,
      });
    const again = items.map(itemId).filter((id) => id !== undefined && firstSeen.has(id)) as string[];
    if (again.length > 0) {
      const first = firstSeen.get(again[0] as string) as number;
      const where = first === index ? 'on the same page' : `already at ${at(first)}`;
      problems.push({
        page: index,
        problem: `${at(index)} listed ${again.length} of its ${items.length} items ${where}: ${paging.position} does not move the window`,
      });
    }
    const previous = pages[index - 1]?.items;
    if (previous && previous.length < size && items.length > 0 && again.length < items.length)
      problems.push({
        page: index,
        problem: `${at(index)} listed items after ${at(index - 1)} answered ${previous.length} of ${paging.size}=${size}`,
      });
    for (const id of items.map(itemId)) if (id !== undefined && !firstSeen.has(id)) firstSeen.set(id, index);
    listed += items.length;
    if (items.length === 0) problems.push(...pastEndProblems(walk, index, listed));
  }
  return problems;
}

/** The verdict on the page that ended a walk: no list (a status), or an empty one. */
function pastEndProblems(
  walk: Pick<Walk, 'paging'> & { pages: Array<Omit<WalkedPage, 'result'>> },
  index: number,
  listed: number,
): Array<{ page: number; problem: string }> {
  const page = walk.pages[index];
  const pastEnd = walk.paging?.pastEnd;
  if (!page || index === 0) return [];
  const label = positionLabel(walk, page);
  if (page.items === undefined) {
    if (page.status === pastEnd) return [];
    const expected = pastEnd === undefined ? 'an empty list' : `the documented ${pastEnd}`;
    return [
      { page: index, problem: `the page past the end (${label}) answered ${page.status}, not ${expected}` },
    ];
  }
  if (pastEnd === undefined || listed === 0) return [];
  return [
    {
      page: index,
      problem: `the page past the end (${label}) answered an empty list, not the documented ${pastEnd}`,
    },
  ];
}

/** Whether a listed item is in the spec's deleted form (a schema marked `x-resource-deleted` matches it). */
export function isListedDeleted(validator: SpecValidator, shape: ListShape, item: unknown): boolean {
  return deletedSchemas(validator, shape.items).some(
    (schema) => validator.validateAt(schema.pointer, item).length === 0,
  );
}
