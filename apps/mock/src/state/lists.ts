// A list as the API pages it: the items a query parameter named like one of their fields selects (with
// the parameter's default when it is not sent: WordPress lists `publish`ed posts unless asked for others),
// in the order `order`/`orderby` ask (creation order otherwise), one page of them — `limit`/`offset`, or
// WordPress's `page`/`per_page` (`offset` overriding `page`) with the documented total, page count and
// RFC 8288 `Link` to the neighbouring pages.
import { isObject } from '@platform-api/validator';
import type { ListShape } from './model.js';
import type { StoredItem } from './store.js';

export interface Page {
  items: StoredItem[];
  /** Raw header pairs: the total, the page count, `Link`. */
  headers: string[];
  /** The documented answer for a page past the last. */
  pastEnd?: { status: number; example?: string };
}

export function pageOf(options: {
  /** The bucket's items, deleted ones included (they are left out here). */
  items: Iterable<StoredItem>;
  list: ListShape;
  query: URLSearchParams;
  /** Where the API's paths start as the caller sees it, and the path asked (for `Link`). */
  request: { base: string; pathname: string; search: string };
}): Page {
  const { list, query, request } = options;
  const filters = list.filters.flatMap((filter) => {
    const sent = query.getAll(filter.name).flatMap((value) => value.split(','));
    const wanted = sent.length > 0 ? sent : defaults(filter.defaultValue);
    return wanted.length > 0 ? [{ name: filter.name, wanted }] : [];
  });
  const listed = (item: StoredItem) =>
    !item.deleted &&
    filters.every(({ name, wanted }) => isObject(item.value) && wanted.includes(String(item.value[name])));
  const orderBy = list.orderBy && (query.get(list.orderBy.name) ?? list.orderBy.defaultValue);
  const direction = list.order ? (query.get(list.order.name) ?? list.order.defaultValue) : 'asc';
  const ordered = (): StoredItem[] => {
    let items = [...options.items].filter(listed);
    if (orderBy !== undefined) items = items.sort((a, b) => compare(field(a, orderBy), field(b, orderBy)));
    return direction === 'desc' ? items.reverse() : items;
  };

  const paging = list.paging;
  if (!paging) return { items: ordered(), headers: [] };
  const size = integer(query.get(paging.size)) ?? paging.defaultSize;
  const offset = paging.offset ? integer(query.get(paging.offset)) : undefined;
  const pageNumber = paging.page ? (integer(query.get(paging.page)) ?? 1) : 1;
  const start = offset ?? (paging.style === 'page' ? (pageNumber - 1) * size : 0);
  // In creation order, one pass over the bucket makes the page (and counts, when a header needs the total).
  const counted = Boolean(paging.totalHeader || paging.pagesHeader || paging.linkHeader || paging.pastEnd);
  let items: StoredItem[] = [];
  let total = 0;
  if (orderBy === undefined && direction !== 'desc') {
    for (const item of options.items) {
      if (!listed(item)) continue;
      if (total >= start && items.length < size) items.push(item);
      total += 1;
      if (!counted && items.length >= size) break;
    }
  } else {
    const all = ordered();
    total = all.length;
    items = all.slice(start, start + size);
  }
  const pages = size > 0 ? Math.ceil(total / size) : 0;
  if (paging.style === 'page' && offset === undefined && pageNumber > Math.max(1, pages) && paging.pastEnd)
    return { items: [], headers: [], pastEnd: paging.pastEnd };
  const headers: string[] = [];
  if (paging.totalHeader) headers.push(paging.totalHeader, String(total));
  if (paging.pagesHeader) headers.push(paging.pagesHeader, String(pages));
  if (paging.linkHeader && paging.page) {
    const link = (page: number) => {
      const next = new URLSearchParams(request.search);
      next.set(paging.page as string, String(page));
      return `<${request.base}${request.pathname}?${next}>`;
    };
    const links: string[] = [];
    if (pageNumber > 1 && pages > 0) links.push(`${link(Math.min(pageNumber - 1, pages))}; rel="prev"`);
    if (pageNumber < pages) links.push(`${link(pageNumber + 1)}; rel="next"`);
    if (links.length > 0) headers.push(paging.linkHeader, links.join(', '));
  }
  return { items, headers };
}

function defaults(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

function integer(text: string | null): number | undefined {
  if (text === null || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isInteger(value) && value >= 0 ? value : undefined;
}

function field(item: StoredItem, name: string): unknown {
  return isObject(item.value) ? item.value[name] : undefined;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  const left = typeof a === 'string' ? a : JSON.stringify(a);
  const right = typeof b === 'string' ? b : JSON.stringify(b);
  return left < right ? -1 : left > right ? 1 : 0;
}
