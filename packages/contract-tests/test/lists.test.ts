// The list walker's pure parts: how each API's lists page (read from the bundles), and the verdicts of a
// walk from given pages (pagination_semantics).
import { describe, expect, it } from 'vitest';
import { loadBundle, SpecValidator } from '../src/index.js';
import { listShape, orderById, type Paging, pagingOf, walkProblems } from '../src/run/lists.js';

const platform = new SpecValidator(loadBundle('platform'));
const site = new SpecValidator(loadBundle('site'));

const offsetPaging: Paging = {
  size: 'limit',
  position: 'offset',
  counts: 'items',
  first: 0,
  smallest: 1,
  usual: 50,
};
const pagePaging: Paging = {
  size: 'per_page',
  position: 'page',
  counts: 'pages',
  first: 1,
  smallest: 1,
  usual: 10,
  pastEnd: 400,
};

/** Pages of a walk with pages of `size`: each a list of ids, or a status for an answer that is no list. */
function walk(paging: Paging, size: number, pages: Array<number[] | number>) {
  return {
    paging,
    size,
    pages: pages.map((page, index) => ({
      position: paging.first + index * (paging.counts === 'items' ? size : 1),
      status: typeof page === 'number' ? page : 200,
      items: typeof page === 'number' ? undefined : page.map((id) => ({ id })),
    })),
  };
}

describe('how a list pages, from the spec', () => {
  it('reads limit/offset with their bounds and defaults, and the page past the end of the site', () => {
    expect(pagingOf(platform, platform.operation('listUsers'))).toEqual({
      size: 'limit',
      position: 'offset',
      counts: 'items',
      first: 0,
      smallest: 1,
      usual: 50,
    });
    expect(pagingOf(site, site.operation('listPosts'))).toEqual(pagePaging);
    // Revisions have no default page size: the largest is the usual one.
    expect(pagingOf(site, site.operation('listPostRevisions'))?.usual).toBe(100);
    expect(pagingOf(platform, platform.operation('listIntegrations'))).toBeUndefined();
    expect(pagingOf(platform, platform.operation('getUser'))).toBeUndefined();
  });

  it('finds the items in the body or its one array property, and sorts by id where offered', () => {
    expect(listShape(platform, platform.operation('listUsers'))?.property).toBeUndefined();
    expect(listShape(platform, platform.operation('listChannels'))?.property).toBe('channels');
    expect(orderById(site, site.operation('listPosts'))).toEqual({ orderby: 'id' });
    expect(orderById(platform, platform.operation('listDatasets'))).toEqual({});
  });
});

describe('the verdicts of a walk', () => {
  it('passes a walk to its end: an empty page (limit/offset) or the documented status (page)', () => {
    expect(walkProblems(walk(offsetPaging, 2, [[1, 2], [3, 4], [5], []]))).toEqual([]);
    expect(walkProblems(walk(pagePaging, 2, [[1, 2], [3], 400]))).toEqual([]);
    // WordPress answers an empty collection's page 2 with an empty list.
    expect(walkProblems(walk(pagePaging, 2, [[], []]))).toEqual([]);
  });

  it('finds an offset that does not move the window', () => {
    const problems = walkProblems(
      walk(offsetPaging, 2, [
        [1, 2],
        [1, 2],
      ]),
    );
    expect(problems).toEqual([
      {
        page: 1,
        problem: 'offset=2 listed 2 of its 2 items already at offset=0: offset does not move the window',
      },
    ]);
  });

  it('finds a page larger than its limit', () => {
    expect(
      walkProblems(
        walk(offsetPaging, 2, [
          [1, 2, 3],
          [3, 4, 5],
        ]),
      ).map((p) => p.problem),
    ).toEqual([
      'offset=0 answered 3 items, more than limit=2',
      'offset=2 answered 3 items, more than limit=2',
      'offset=2 listed 1 of its 3 items already at offset=0: offset does not move the window',
    ]);
  });

  it('finds items after a short page, and a page past the end other than documented', () => {
    expect(walkProblems(walk(offsetPaging, 2, [[1], [2]])).map((p) => p.problem)).toEqual([
      'offset=2 listed items after offset=0 answered 1 of limit=2',
    ]);
    expect(walkProblems(walk(offsetPaging, 2, [[1, 2], 400])).map((p) => p.problem)).toEqual([
      'the page past the end (offset=2) answered 400, not an empty list',
    ]);
    expect(walkProblems(walk(pagePaging, 2, [[1, 2], []])).map((p) => p.problem)).toEqual([
      'the page past the end (page=2) answered an empty list, not the documented 400',
    ]);
    expect(walkProblems(walk(pagePaging, 2, [[1, 2], 404])).map((p) => p.problem)).toEqual([
      'the page past the end (page=2) answered 404, not the documented 400',
    ]);
  });

  it('judges nothing past a first page that is no list', () => {
    expect(walkProblems(walk(offsetPaging, 2, [401]))).toEqual([]);
  });
});
