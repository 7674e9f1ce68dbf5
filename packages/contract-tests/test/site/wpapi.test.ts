// wpapi (node-wpapi, the WordPress REST client teams use) as the judge of the site mock: one script of
// what such a client does — discovery, lists and single items of posts, pages and media, `embed()`,
// `slug()`, the term filters in every form the spec documents, and pagination followed through
// `_paging.next` to the last page — run unchanged against the site mock (with memory) and every real
// WordPress found (6.1 and 7.1 from scripts/wordpress/wordpress.sh), each seeded the same way through the
// REST API and called as the seeding user (wpapi sends Basic on every request: the mock's anonymous caller
// is a tenant of its own, which would not see the seeded posts). The pages must hold each seeded post once
// and add up to the total everywhere; what the mock has not — terms (no /tags route, no term filtering) and
// embedded objects — is checked on WordPress alone. Every body is checked against the site spec.
import { randomUUID } from 'node:crypto';
import { startMock } from '@platform-api/mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WPAPI from 'wpapi';
import { freePort, loadBundle, pngImage, SpecValidator } from '../../src/index.js';
import { findWordPressSites, type WordPressSite, wordPressUnavailable } from './support/wordpress.js';

const validator = new SpecValidator(loadBundle('site'));
const sites = await findWordPressSites();

/** Posts every site gets (on WordPress all with one tag of this run): enough for three pages of two. */
const SEEDED_POSTS = 5;
const PER_PAGE = 2;

interface Judged {
  /** The site's own URL (what `WPAPI.discover` is given). */
  siteUrl: string;
  /** Its `/wp-json` root. */
  endpoint: string;
  /** The user who seeded it, with an application password: wpapi calls as that user. */
  credentials: { username: string; password: string };
  /** WordPress filters posts by term; the mock has no terms, and lists every post whatever the filter. */
  filtersTerms: boolean;
  /** WordPress embeds linked objects (`_embed`); the mock links none it could embed. */
  embeds: boolean;
  /** What the seeding made: the posts' ids and the tag they all have (on the mock, an id it never checks). */
  seeded: Seeded;
  /** A category all seeded posts are in (1, `Uncategorized`, on every WordPress). */
  category: number;
}

type Listed = Array<Record<string, unknown>> & {
  _paging?: { total: number; totalPages: number; next?: WPAPI.WPRequest; prev?: WPAPI.WPRequest };
};

/** The body wpapi returned, checked against the spec's response of the operation it called. */
function conforms(method: string, path: string, body: unknown): void {
  const operation = validator.findOperation(method, path);
  if (!operation) throw new Error(`no operation in the site spec for ${method} ${path}`);
  const { _paging: _, ...plain } = body as Record<string, unknown>;
  const value = Array.isArray(body) ? [...body] : plain;
  const problems = validator.validateResponse(operation, {
    status: 200,
    headers: new Headers({ 'content-type': 'application/json' }),
    body: JSON.stringify(value),
  });
  expect(problems, `${method} ${path}`).toEqual([]);
}

function judge(target: () => Judged) {
  /** A client that sends the seeding user's credentials on every request. */
  const client = () => {
    const { endpoint, credentials } = target();
    return new WPAPI({ endpoint, ...credentials, auth: true } as WPAPI.WPAPIOptions);
  };

  it('discovers the API root from the site URL (HEAD, Link rel="https://api.w.org/")', async () => {
    const { siteUrl, endpoint, credentials } = target();
    const site = await WPAPI.discover(siteUrl);
    expect(site.root().toString().replace(/\/$/, '')).toBe(endpoint);
    const posts = (await site.auth(credentials).posts().get()) as Listed;
    expect(Array.isArray(posts)).toBe(true);
    expect(posts.length).toBeGreaterThan(0);
  });

  it('lists posts, pages and media and reads one of each by id', async () => {
    const wp = client();
    for (const [kind, request, path] of [
      ['posts', () => wp.posts(), '/wp/v2/posts'],
      ['pages', () => wp.pages(), '/wp/v2/pages'],
      ['media', () => wp.media(), '/wp/v2/media'],
    ] as const) {
      const list = (await request().get()) as Listed;
      conforms('GET', path, list);
      expect(list.length, `${kind}: the list is empty`).toBeGreaterThan(0);
      const id = Number(list[0]?.id);
      const one = await request().id(id).get();
      conforms('GET', `${path}/${id}`, one);
      expect(typeof one.id).toBe('number');
    }
  });

  it('embeds linked objects with embed()', async () => {
    const wp = client();
    const posts = (await wp.posts().embed().get()) as Listed;
    conforms('GET', '/wp/v2/posts', posts);
    expect(posts.length).toBeGreaterThan(0);
    if (target().embeds) expect(posts[0]).toHaveProperty('_embedded.author');
  });

  it('finds a post by slug()', async () => {
    const wp = client();
    const [first] = (await wp.posts().get()) as Listed;
    const slug = String(first?.slug);
    const found = (await wp.posts().slug(slug).get()) as Listed;
    conforms('GET', '/wp/v2/posts', found);
    // A slug is "unique within the type" (the spec): the one post that has it.
    expect(found.map((post) => post.slug)).toEqual([slug]);
  });

  it('filters by term in every form the spec documents', async () => {
    const { seeded, category, filtersTerms } = target();
    const { tag } = seeded;
    const wp = client();
    const tagged = () => wp.posts().tags(tag);
    const forms: Array<[string, () => WPAPI.WPRequest, 'all' | 'none']> = [
      ['categories(1) → categories[]=1', () => tagged().categories(category), 'all'],
      [
        ".param('categories', [1, 2]) → categories[]=1&categories[]=2",
        () => tagged().param('categories', [category, category + 1000]),
        'all',
      ],
      ['categories=1,2', () => tagged().param('categories', `${category},${category + 1000}`), 'all'],
      [
        'categories[terms][]=1&categories[include_children]=true',
        () => tagged().param('categories', { terms: [category], include_children: true }),
        'all',
      ],
      ['excludeCategories(1) → categories_exclude[]=1', () => tagged().excludeCategories(category), 'none'],
      ['categories_exclude=1', () => tagged().param('categories_exclude', String(category)), 'none'],
      ['tags=3', () => wp.posts().param('tags', String(tag)), 'all'],
    ];
    for (const [form, request, expected] of forms) {
      const posts = (await request().get()) as Listed;
      conforms('GET', '/wp/v2/posts', posts);
      if (!filtersTerms) continue;
      // All seeded posts are in the category and have the tag.
      expect(posts.length, form).toBe(expected === 'all' ? Math.min(SEEDED_POSTS, 10) : 0);
    }
  });

  it('refuses a term filter that is no list of ids with 400 rest_invalid_param', async () => {
    const wp = client();
    const refused = await wp
      .posts()
      .param('categories', 'none')
      .get()
      .then(
        () => undefined,
        (error: { code?: string; data?: { status?: number } }) => error,
      );
    expect(refused).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
  });

  it('pages through a list with _paging.next to the last page, staying on the site', async () => {
    const { endpoint, seeded, filtersTerms } = target();
    const wp = client();
    const origin = new URL(endpoint).origin;
    // Held to the seeded posts' tag where the site filters by term; on the mock, all its posts.
    const { tag } = seeded;
    // By id: the seeded posts share their date to the second, and MariaDB orders ties differently from
    // one query to the next.
    let page = (await wp.posts().tags(tag).perPage(PER_PAGE).orderby('id').order('asc').get()) as Listed;
    const first = page._paging;
    expect(first, 'no X-WP-TotalPages on the first page').toBeDefined();
    expect(first?.totalPages).toBeGreaterThanOrEqual(2);
    expect(first?.totalPages).toBe(Math.ceil((first?.total ?? 0) / PER_PAGE));
    expect(first?.prev).toBeUndefined();
    const ids = page.map((post) => post.id);
    let pages = 1;
    while (page._paging?.next) {
      const next = page._paging.next;
      expect(new URL(next.toString()).origin, 'a next link that leaves the site').toBe(origin);
      page = (await next.get()) as Listed;
      pages += 1;
      conforms('GET', '/wp/v2/posts', page);
      expect(page._paging?.prev, `page ${pages} has no prev link`).toBeDefined();
      expect(page._paging?.total).toBe(first?.total);
      ids.push(...page.map((post) => post.id));
      if (pages > (first?.totalPages ?? 0)) break;
    }
    expect(pages).toBe(first?.totalPages);
    // Each post once, and all of them: every seeded post, and as many as the total says.
    expect(new Set(ids).size, `ids ${ids.join(', ')}`).toBe(ids.length);
    expect(ids.length).toBe(first?.total);
    for (const id of seeded.posts) expect(ids, `seeded post ${id}`).toContain(id);
    if (filtersTerms) expect(first?.total).toBe(SEEDED_POSTS);
  });
}

describe('wpapi against the site mock', () => {
  let mock: Awaited<ReturnType<typeof startMock>>;
  let seeded: Seeded | undefined;
  // A user of its own: the mock's tenant, whose first password sticks.
  const credentials = { username: `wpapi-${randomUUID()}`, password: randomUUID() };
  beforeAll(async () => {
    mock = await startMock('site', { port: await freePort() });
    // The mock has no /tags route: the posts name a tag id it never looks up.
    seeded = await seed({ url: mock.url, user: credentials.username, password: credentials.password }, 3);
  }, 300_000);
  afterAll(async () => {
    await seeded?.remove();
    await mock?.close();
  });
  judge(() => {
    if (!seeded) throw new Error('the seeding failed');
    return {
      siteUrl: mock.url,
      endpoint: `${mock.url}/wp-json`,
      credentials,
      filtersTerms: false,
      embeds: false,
      seeded,
      category: 1,
    };
  });
});

for (const site of sites) {
  if (!site.available) {
    wordPressUnavailable(site.reason, 'wpapi', site.name);
    continue;
  }
  describe(`wpapi against ${site.name}`, () => {
    let seeded: Seeded | undefined;
    beforeAll(async () => {
      seeded = await seed(site);
    }, 120_000);
    afterAll(() => seeded?.remove());
    judge(() => {
      if (!seeded) throw new Error('the seeding failed');
      return {
        siteUrl: site.url,
        endpoint: `${site.url}/wp-json`,
        credentials: { username: site.user, password: site.password },
        filtersTerms: true,
        embeds: true,
        seeded,
        category: 1,
      };
    });
  });
}

interface Seeded {
  /** The tag the posts have. */
  tag: number;
  /** The posts' ids, in the order they were made. */
  posts: number[];
  remove(): Promise<void>;
}

/**
 * A tag of this run (unless `tag` names one: the mock has no tags), SEEDED_POSTS published posts with it
 * (in category 1) and one image, made through the REST API with the site's application password; `remove`
 * deletes them. The pagination and filters are held to the tag, so posts other suites make on the same
 * site at the same time do not count.
 */
async function seed(site: Pick<WordPressSite, 'url' | 'user' | 'password'>, tag?: number): Promise<Seeded> {
  const authorization = `Basic ${Buffer.from(`${site.user}:${site.password}`).toString('base64')}`;
  const base = `${site.url}/wp-json/wp/v2`;
  const made: string[] = [];
  const create = async (path: string, body: string | Blob, headers: Record<string, string>) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization, ...headers },
      body,
    });
    const json = (await response.json()) as { id: number };
    if (response.status !== 201)
      throw new Error(`POST ${path} → ${response.status}: ${JSON.stringify(json)}`);
    made.unshift(`${path}/${json.id}`);
    return json.id;
  };
  const remove = async () => {
    for (const path of made) {
      await fetch(`${base}${path}?force=true`, { method: 'DELETE', headers: { authorization } });
    }
  };
  try {
    const run = `wpapi-${process.pid}-${Date.now()}`;
    const tagId =
      tag ?? (await create('/tags', JSON.stringify({ name: run }), { 'content-type': 'application/json' }));
    const posts: number[] = [];
    for (let i = 1; i <= SEEDED_POSTS; i++) {
      posts.push(
        await create(
          '/posts',
          JSON.stringify({ title: `${run} ${i}`, status: 'publish', tags: [tagId], categories: [1] }),
          { 'content-type': 'application/json' },
        ),
      );
    }
    await create('/media', new Blob([pngImage(8, 8)]), {
      'content-type': 'image/png',
      'content-disposition': `attachment; filename="${run}.png"`,
    });
    return { tag: tagId, posts, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
