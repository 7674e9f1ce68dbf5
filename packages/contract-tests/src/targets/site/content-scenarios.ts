// Scenarios of the content types that share one shape (posts, pages, reusable blocks, menu items): list
// within bounds, create (401 anonymous, 400 broken JSON, 201 + Location), read, update with POST, PUT and
// PATCH, revisions (deleting one is refused), autosaves, who is refused, and trash (200, then 410) or no
// trash (501), then deletion with force. On the mock with memory, what it keeps is read back; revisions
// and what needs a user's capabilities are WordPress's alone.
import assert from 'node:assert/strict';
import { type Json, MISSING_ID, NO_ROLES, type SiteHarness } from './harness.js';
import { refusalScenarios, type Scenario } from './scenario.js';

export const CONTENT_TYPES = [
  { noun: 'Post', route: 'posts', plural: 'Posts', revisions: true, trash: true },
  { noun: 'Page', route: 'pages', plural: 'Pages', revisions: true, trash: true },
  { noun: 'Block', route: 'blocks', plural: 'Blocks', revisions: true, trash: true },
  { noun: 'MenuItem', route: 'menu-items', plural: 'MenuItems', revisions: false, trash: false },
] as const;

export type ContentType = (typeof CONTENT_TYPES)[number];

/** Why anonymous `context=edit` is WordPress's to refuse: the mock serves its anonymous caller as a tenant. */
const EDIT_CONTEXT =
  'WordPress refuses the edit context to an anonymous caller; the mock serves it as a tenant of its own (a list of its own, a 404 for what it lacks)';

/**
 * How many times `id` is in the list of `plural`, drafts included, walked page by page (the mock does not
 * filter by `include`, which is no field of the items).
 */
async function timesListed(h: SiteHarness, plural: string, id: number): Promise<number> {
  let found = 0;
  let pages = 1;
  for (let page = 1; page <= pages; page += 1) {
    const result = await h.call(`list${plural}`, 200, {
      query: { per_page: 100, page, status: ['publish', 'draft'] },
    });
    found += (result.json as Json[]).filter((item) => item.id === id).length;
    pages = Number(result.headers.get('x-wp-totalpages'));
    assert.ok(Number.isInteger(pages), `list${plural} answered X-WP-TotalPages ${pages}`);
  }
  return found;
}

export function contentScenarios(h: SiteHarness, type: ContentType): Scenario[] {
  const { noun, plural, revisions, trash, route } = type;
  const { runId } = h;
  let id: number;
  let revisionId: number | undefined;
  let autosaveId: number;
  const body = (title: string): Json =>
    noun === 'MenuItem'
      ? {
          title,
          menus: h.fixture.menu,
          type: 'custom',
          url: 'https://example.org/contract',
          status: 'publish',
        }
      : { title, content: `<!-- wp:paragraph --><p>${title}</p><!-- /wp:paragraph -->`, status: 'publish' };
  // Menu items are not public: listing them needs a user who can edit menus.
  const anonymousList = noun !== 'MenuItem';
  const scenarios: Scenario[] = [
    {
      name: 'lists, within per_page bounds and pages that exist',
      run: async () => {
        await h.call(`list${plural}`, 200, { authenticate: anonymousList ? false : undefined });
        if (!anonymousList) {
          const refused = await h.call(`list${plural}`, 401, { authenticate: false });
          h.expectWpError(refused, 'rest_cannot_view');
        }
        for (const perPage of [0, 101]) {
          const result = await h.call(`list${plural}`, 400, { query: { per_page: perPage } });
          h.expectWpError(result, 'rest_invalid_param', { argument: 'per_page', code: 'rest_out_of_bounds' });
        }
        if (anonymousList && h.wordPressStep(`list${plural} context=edit anonymously`, EDIT_CONTEXT)) {
          const editContext = await h.call(`list${plural}`, 401, {
            query: { context: 'edit' },
            authenticate: false,
          });
          h.expectWpError(editContext, 'rest_forbidden_context');
        }
      },
    },
    {
      name: 'refuses anonymous and broken creates, then creates (201 + Location)',
      run: async () => {
        const anonymous = await h.call(`create${noun}`, 401, {
          body: body('anonymous'),
          authenticate: false,
        });
        h.expectWpError(anonymous, 'rest_cannot_create');
        const broken = await h.call(`create${noun}`, 400, {
          body: new TextEncoder().encode('{"title": '),
          contentType: 'application/json',
        });
        h.expectWpError(broken, 'rest_invalid_json');
        const created = await h.call(`create${noun}`, 201, { body: body(`contract ${runId} ${noun}`) });
        id = h.idOf(created);
        h.cleanup(`${noun} ${id}`, `delete${noun}`, { id });
        if (h.stateful) assert.match(created.headers.get('location') ?? '', new RegExp(`/${id}$`));
      },
    },
    {
      name: 'reads one, finds it by include, and 404 for an unknown id',
      run: async () => {
        const one = await h.call(`get${noun}`, 200, { path: { id } });
        if (h.stateful) assert.equal((one.json as Json).id, id);
        const filtered = await h.call(`list${plural}`, 200, {
          query: { include: [id], per_page: 5, status: ['publish', 'draft'] },
        });
        if (h.notOnMock(`list${plural} include=[id]`, 'the mock filters by fields of the items, not include'))
          assert.deepEqual(
            (filtered.json as Json[]).map((item) => item.id),
            [id],
          );
        // What include shows on WordPress: the new item is listed, once.
        if (h.mock) assert.equal(await timesListed(h, plural, id), 1, `${noun} ${id} listed`);
        // Past the last page is 400 only when there is a page at all: the collection now holds `id`.
        const pastTheEnd = await h.call(`list${plural}`, 400, { query: { page: 100000 } });
        h.expectWpError(pastTheEnd, 'rest_post_invalid_page_number');
        const missing = await h.call(`get${noun}`, 404, { path: { id: MISSING_ID } });
        h.expectWpError(missing, 'rest_post_invalid_id');
        if (h.wordPressStep(`get${noun} context=edit anonymously`, EDIT_CONTEXT))
          await h.call(`get${noun}`, 401, { path: { id }, query: { context: 'edit' }, authenticate: false });
        if (h.wordPressStep(`get${noun} context=edit as a subscriber`, NO_ROLES))
          await h.call(`get${noun}`, 403, { path: { id }, query: { context: 'edit' } }, h.subscriber);
      },
    },
    {
      name: 'updates with POST, PUT and PATCH',
      run: async () => {
        for (const [verb, operationId] of [
          ['post', `update${noun}`],
          ['put', `replace${noun}`],
          ['patch', `patch${noun}`],
        ] as const) {
          const result = await h.call(operationId, 200, {
            path: { id },
            body: body(`contract ${runId} ${noun} ${verb}`),
          });
          if (h.stateful) assert.match(JSON.stringify((result.json as Json).title), new RegExp(verb));
          // The mock's memory is what is under test there: the change is read back.
          if (h.mock) {
            const read = await h.call(`get${noun}`, 200, { path: { id } });
            assert.match(JSON.stringify((read.json as Json).title), new RegExp(verb));
          }
        }
        for (const operationId of [`update${noun}`, `replace${noun}`, `patch${noun}`]) {
          const invalid = await h.call(operationId, 400, {
            path: { id },
            body: { status: 'no-such-status' },
          });
          h.expectWpError(invalid, 'rest_invalid_param', { argument: 'status', code: 'rest_not_in_enum' });
          const missing = await h.call(operationId, 404, { path: { id: MISSING_ID }, body: body('missing') });
          h.expectWpError(missing, 'rest_post_invalid_id');
        }
      },
    },
  ];
  if (revisions) {
    scenarios.push({
      name: 'lists and reads revisions; deleting one is refused (403)',
      notApplicable: h.needsWordPress('revisions, which WordPress makes when content is updated'),
      run: async () => {
        const list = await h.call(`list${noun}Revisions`, 200, { path: { parent: id } });
        revisionId = h.firstId(list, 5);
        await h.call(`get${noun}Revision`, 200, { path: { parent: id, id: revisionId } });
        const missingRevision = await h.call(`get${noun}Revision`, 404, {
          path: { parent: id, id: MISSING_ID },
        });
        h.expectWpError(missingRevision, 'rest_post_invalid_id');
        const deleteMissing = await h.call(`delete${noun}Revision`, 404, {
          path: { parent: id, id: MISSING_ID },
          query: { force: true },
        });
        h.expectWpError(deleteMissing, 'rest_post_invalid_id');
        const tooMany = await h.call(`list${noun}Revisions`, 400, {
          path: { parent: id },
          query: { per_page: 101 },
        });
        h.expectWpError(tooMany, 'rest_invalid_param', { argument: 'per_page', code: 'rest_out_of_bounds' });
        const missingParent = await h.call(`list${noun}Revisions`, 404, { path: { parent: MISSING_ID } });
        h.expectWpError(missingParent, 'rest_post_invalid_parent');
        // Revisions cannot be trashed, and WordPress maps delete_post on a revision to do_not_allow.
        for (const force of [true, false]) {
          const refused = await h.call(`delete${noun}Revision`, 403, {
            path: { parent: id, id: revisionId },
            query: { force },
          });
          h.expectWpError(refused, 'rest_cannot_delete');
        }
      },
    });
  }
  scenarios.push(
    {
      name: 'creates, lists and reads autosaves',
      run: async () => {
        const created = await h.call(`create${noun}Autosave`, 200, {
          path: { id },
          body: { ...body(`contract ${runId} ${noun} autosave`), status: undefined },
        });
        const list = await h.call(`list${noun}Autosaves`, 200, { path: { id } });
        autosaveId = h.firstId(list, (created.json as Json).id ?? 6);
        const read = await h.call(`get${noun}Autosave`, 200, { path: { parent: id, id: autosaveId } });
        if (h.mock) {
          const createdId = h.idOf(created);
          assert.deepEqual(
            (list.json as Json[]).map((autosave) => autosave.id),
            [createdId],
            'the autosaves listed',
          );
          assert.equal((read.json as Json).parent, id);
          assert.match(JSON.stringify((read.json as Json).title), /autosave/);
        }
        const missing = await h.call(`list${noun}Autosaves`, 404, { path: { id: MISSING_ID } });
        h.expectWpError(missing, 'rest_post_invalid_parent');
        const missingParent = await h.call(`create${noun}Autosave`, 404, {
          path: { id: MISSING_ID },
          body: body('missing'),
        });
        h.expectWpError(missingParent, 'rest_post_invalid_id');
        const invalid = await h.call(`create${noun}Autosave`, 400, {
          path: { id },
          body: { status: 'no-such-status' },
        });
        h.expectWpError(invalid, 'rest_invalid_param');
        // WordPress 6.1 answers the parent's autosave whatever the autosave id; only the parent is checked.
        const unknownParent = await h.call(`get${noun}Autosave`, 404, {
          path: { parent: MISSING_ID, id: autosaveId },
        });
        h.expectWpError(unknownParent, 'rest_post_invalid_parent');
      },
    },
    ...refusalScenarios(
      h,
      `/wp/v2/${route}`,
      (operation): Record<string, number> =>
        operation.path.includes('{parent}')
          ? // Where revisions are not listed (the mock), any id: the caller is refused before it is looked up.
            {
              parent: id,
              id: operation.path.includes('/revisions/') ? (revisionId ?? MISSING_ID) : autosaveId,
            }
          : { id },
    ),
    {
      name: trash
        ? 'trashes (200), refuses a second trash (410), deletes with force'
        : 'refuses to trash (501), deletes with force',
      run: async () => {
        if (trash) {
          const trashed = await h.call(`delete${noun}`, 200, { path: { id } });
          if (h.stateful) assert.equal((trashed.json as Json).status, 'trash');
          const again = await h.call(`delete${noun}`, 410, { path: { id } });
          h.expectWpError(again, 'rest_already_trashed');
        } else {
          const refused = await h.call(`delete${noun}`, 501, { path: { id } });
          h.expectWpError(refused, 'rest_trash_not_supported');
        }
        const deleted = await h.call(`delete${noun}`, 200, { path: { id }, query: { force: true } });
        if (h.stateful) assert.equal((deleted.json as Json).deleted, true);
        const gone = await h.call(`get${noun}`, 404, { path: { id } });
        h.expectWpError(gone, 'rest_post_invalid_id');
        const missing = await h.call(`delete${noun}`, 404, {
          path: { id: MISSING_ID },
          query: { force: true },
        });
        h.expectWpError(missing, 'rest_post_invalid_id');
      },
    },
  );
  return scenarios.map((scenario) => ({ ...scenario, name: `${plural} › ${scenario.name}` }));
}
