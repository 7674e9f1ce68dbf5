// Scenarios of the content types that share one shape (posts, pages, reusable blocks, menu items): list
// within bounds, create (401 anonymous, 400 broken JSON, 201 + Location), read, update with POST, PUT and
// PATCH, revisions (deleting one is refused), autosaves, who is refused, and trash (200, then 410) or no
// trash (501), then deletion with force. On the mock with memory, what it keeps is read back; revisions
// and what needs a user's capabilities are WordPress's alone.
import assert from 'node:assert/strict';
import type { Operation } from '@platform-api/validator';
import { deletedNotListed, paginationSemantics } from '../../run/phases/pagination.js';
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

/**
 * One walk through a content type's routes, in the order of `contentScenarios`: each step is a method, and
 * what a step leaves for the later ones is a field, set by the step its comment names.
 */
class ContentWalk {
  /** The item the walk created: set by creates. */
  private id: number | undefined;
  /** A revision of it, where revisions are listed: set by revisionsRefuseDeletion. */
  private revisionId: number | undefined;
  /** Its autosave: set by autosaves. */
  private autosaveId: number | undefined;
  /** Menu items are not public: listing them needs a user who can edit menus. */
  readonly anonymousList: boolean;

  constructor(
    readonly h: SiteHarness,
    readonly type: ContentType,
  ) {
    this.anonymousList = type.noun !== 'MenuItem';
  }

  created(): number {
    if (this.id === undefined)
      throw new Error(`no ${this.type.noun} created (its create scenario did not pass)`);
    return this.id;
  }

  /** A body of the type's create and updates, titled `title`. */
  body(title: string): Json {
    return this.type.noun === 'MenuItem'
      ? {
          title,
          menus: this.h.fixture.menu,
          type: 'custom',
          url: 'https://example.org/contract',
          status: 'publish',
        }
      : { title, content: `<!-- wp:paragraph --><p>${title}</p><!-- /wp:paragraph -->`, status: 'publish' };
  }

  /**
   * The ids under a refused operation's path; where revisions are not listed (the mock), any id: the caller
   * is refused before it is looked up.
   */
  refusedPath(operation: Operation): Record<string, number> {
    const id = this.created();
    if (!operation.path.includes('{parent}')) return { id };
    const ownId = operation.path.includes('/revisions/') ? this.revisionId : this.autosaveId;
    return { parent: id, id: ownId ?? MISSING_ID };
  }

  /** Lists within per_page bounds and pages that exist; the edit context is refused anonymously. */
  async listsWithinBounds(): Promise<void> {
    const { h } = this;
    const { plural } = this.type;
    await h.call(`list${plural}`, 200, { authenticate: this.anonymousList ? false : undefined });
    if (!this.anonymousList) {
      const refused = await h.call(`list${plural}`, 401, { authenticate: false });
      h.expectWpError(refused, 'rest_cannot_view');
    }
    for (const perPage of [0, 101]) {
      const result = await h.call(`list${plural}`, 400, { query: { per_page: perPage } });
      h.expectWpError(result, 'rest_invalid_param', { argument: 'per_page', code: 'rest_out_of_bounds' });
    }
    if (this.anonymousList && h.wordPressStep(`list${plural} context=edit anonymously`, EDIT_CONTEXT)) {
      const editContext = await h.call(`list${plural}`, 401, {
        query: { context: 'edit' },
        authenticate: false,
      });
      h.expectWpError(editContext, 'rest_forbidden_context');
    }
  }

  /** Refuses anonymous and broken creates, then creates the walk's item (`id`; 201 + Location). */
  async creates(): Promise<void> {
    const { h } = this;
    const { noun } = this.type;
    const { runId } = h;
    const anonymous = await h.call(`create${noun}`, 401, {
      body: this.body('anonymous'),
      authenticate: false,
    });
    h.expectWpError(anonymous, 'rest_cannot_create');
    const broken = await h.call(`create${noun}`, 400, {
      body: new TextEncoder().encode('{"title": '),
      contentType: 'application/json',
    });
    h.expectWpError(broken, 'rest_invalid_json');
    const created = await h.call(`create${noun}`, 201, { body: this.body(`contract ${runId} ${noun}`) });
    const id = h.idOf(created);
    h.cleanup(`${noun} ${id}`, `delete${noun}`, { id });
    this.id = id;
    if (h.stateful) assert.match(created.headers.get('location') ?? '', new RegExp(`/${id}$`));
  }

  /** Reads the created item, finds it by include, and 404 for an unknown id. */
  async readsAndFinds(): Promise<void> {
    const { h } = this;
    const { noun, plural } = this.type;
    const id = this.created();
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
    // The list holds what the run made: walked page by page (pagination_semantics, its own results).
    if (h.stateful)
      await paginationSemantics(h.session, h.validator.operation(`list${plural}`), {}, h.client);
    // Past the last page is 400 only when there is a page at all: the collection now holds `id`.
    const pastTheEnd = await h.call(`list${plural}`, 400, { query: { page: 100000 } });
    h.expectWpError(pastTheEnd, 'rest_post_invalid_page_number');
    const missing = await h.call(`get${noun}`, 404, { path: { id: MISSING_ID } });
    h.expectWpError(missing, 'rest_post_invalid_id');
    if (h.wordPressStep(`get${noun} context=edit anonymously`, EDIT_CONTEXT))
      await h.call(`get${noun}`, 401, { path: { id }, query: { context: 'edit' }, authenticate: false });
    if (h.wordPressStep(`get${noun} context=edit as a subscriber`, NO_ROLES))
      await h.call(`get${noun}`, 403, { path: { id }, query: { context: 'edit' } }, h.subscriber);
  }

  /** Updates the created item with POST, PUT and PATCH. */
  async updates(): Promise<void> {
    const { h } = this;
    const { noun } = this.type;
    const { runId } = h;
    const id = this.created();
    for (const [verb, operationId] of [
      ['post', `update${noun}`],
      ['put', `replace${noun}`],
      ['patch', `patch${noun}`],
    ] as const) {
      const result = await h.call(operationId, 200, {
        path: { id },
        body: this.body(`contract ${runId} ${noun} ${verb}`),
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
      const missing = await h.call(operationId, 404, {
        path: { id: MISSING_ID },
        body: this.body('missing'),
      });
      h.expectWpError(missing, 'rest_post_invalid_id');
    }
  }

  /** Lists and reads revisions (`revisionId`); deleting one is refused (403). */
  async revisionsRefuseDeletion(): Promise<void> {
    const { h } = this;
    const { noun } = this.type;
    const id = this.created();
    const list = await h.call(`list${noun}Revisions`, 200, { path: { parent: id } });
    this.revisionId = h.firstId(list, 5);
    if (h.stateful) await paginationSemantics(h.session, list.operation, { path: { parent: id } }, h.client);
    await h.call(`get${noun}Revision`, 200, { path: { parent: id, id: this.revisionId } });
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
        path: { parent: id, id: this.revisionId },
        query: { force },
      });
      h.expectWpError(refused, 'rest_cannot_delete');
    }
  }

  /** Creates, lists and reads an autosave (`autosaveId`). */
  async autosaves(): Promise<void> {
    const { h } = this;
    const { noun } = this.type;
    const { runId } = h;
    const id = this.created();
    const created = await h.call(`create${noun}Autosave`, 200, {
      path: { id },
      body: { ...this.body(`contract ${runId} ${noun} autosave`), status: undefined },
    });
    const list = await h.call(`list${noun}Autosaves`, 200, { path: { id } });
    this.autosaveId = h.firstId(list, (created.json as Json).id ?? 6);
    const read = await h.call(`get${noun}Autosave`, 200, { path: { parent: id, id: this.autosaveId } });
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
      body: this.body('missing'),
    });
    h.expectWpError(missingParent, 'rest_post_invalid_id');
    const invalid = await h.call(`create${noun}Autosave`, 400, {
      path: { id },
      body: { status: 'no-such-status' },
    });
    h.expectWpError(invalid, 'rest_invalid_param');
    // WordPress 6.1 answers the parent's autosave whatever the autosave id; only the parent is checked.
    const unknownParent = await h.call(`get${noun}Autosave`, 404, {
      path: { parent: MISSING_ID, id: this.autosaveId },
    });
    h.expectWpError(unknownParent, 'rest_post_invalid_parent');
  }

  /** Trashes (200, then 410) or is refused the trash (501), then deletes with force. */
  async trashesAndDeletes(): Promise<void> {
    const { h } = this;
    const { noun, trash } = this.type;
    const id = this.created();
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
    if (h.stateful) await deletedNotListed(h.session, deleted, h.client);
    const gone = await h.call(`get${noun}`, 404, { path: { id } });
    h.expectWpError(gone, 'rest_post_invalid_id');
    const missing = await h.call(`delete${noun}`, 404, {
      path: { id: MISSING_ID },
      query: { force: true },
    });
    h.expectWpError(missing, 'rest_post_invalid_id');
  }
}

export function contentScenarios(h: SiteHarness, type: ContentType): Scenario[] {
  const walk = new ContentWalk(h, type);
  const scenarios: Scenario[] = [
    { name: 'lists, within per_page bounds and pages that exist', run: () => walk.listsWithinBounds() },
    {
      name: 'refuses anonymous and broken creates, then creates (201 + Location)',
      run: () => walk.creates(),
    },
    { name: 'reads one, finds it by include, and 404 for an unknown id', run: () => walk.readsAndFinds() },
    { name: 'updates with POST, PUT and PATCH', run: () => walk.updates() },
  ];
  if (type.revisions)
    scenarios.push({
      name: 'lists and reads revisions; deleting one is refused (403)',
      notApplicable: h.needsWordPress('revisions, which WordPress makes when content is updated'),
      run: () => walk.revisionsRefuseDeletion(),
    });
  scenarios.push(
    { name: 'creates, lists and reads autosaves', run: () => walk.autosaves() },
    ...refusalScenarios(h, `/wp/v2/${type.route}`, (operation) => walk.refusedPath(operation)),
    {
      name: type.trash
        ? 'trashes (200), refuses a second trash (410), deletes with force'
        : 'refuses to trash (501), deletes with force',
      run: () => walk.trashesAndDeletes(),
    },
  );
  return scenarios.map((scenario) => ({ ...scenario, name: `${type.plural} › ${scenario.name}` }));
}
