// Scenarios of block templates and template parts: the active theme's own (found by listing, whichever
// theme the site runs), lookup by slug, create/read/update, revisions and autosaves (WordPress 6.4+; older
// versions route `templates/{id}/revisions` to the template itself and answer 404), who is refused, and
// deletion (a theme's own template cannot be deleted). The mock with memory keeps what is created; the
// theme's files (lookup, deletion refused) and revisions are WordPress's alone.
import assert from 'node:assert/strict';
import type { Operation } from '@platform-api/validator';
import type { CallOptions } from '../../client.js';
import { type Json, MISSING_ID, type SiteHarness } from './harness.js';
import { refusalScenarios, type Scenario } from './scenario.js';

export const TEMPLATE_TYPES = [
  { noun: 'Template', route: 'templates', plural: 'Templates', extra: {} },
  {
    noun: 'TemplatePart',
    route: 'template-parts',
    plural: 'TemplateParts',
    extra: { area: 'uncategorized' },
  },
] as const;

export type TemplateType = (typeof TEMPLATE_TYPES)[number];

/**
 * One walk through a template type's routes, in the order of `templateScenarios`: each step is a method,
 * and what a step leaves for the later ones is a field, set by the step its comment names.
 */
class TemplateWalk {
  /** The template the walk created: set by createsAndUpdates. */
  private id: string | undefined;
  /** A template of the active theme that only exists as a theme file: found by listsForAuthenticatedOnly. */
  private themeTemplate: Json = {};
  /** The revisions' own ids (`wp_id`), on a WordPress that serves them: set by revisionsAndAutosaves. */
  private revisionIds: number[] = [];
  /** The autosave's own id: set by revisionsAndAutosaves. */
  private autosaveId = 1;
  readonly slug: string;

  constructor(
    readonly h: SiteHarness,
    readonly type: TemplateType,
  ) {
    this.slug = `contract-${h.runId}-${type.noun.toLowerCase()}`;
  }

  created(): string {
    if (this.id === undefined)
      throw new Error(`no ${this.type.noun} created (its create scenario did not pass)`);
    return this.id;
  }

  revisionAt(index: number): number {
    const revisionId = this.revisionIds.at(index);
    if (revisionId === undefined) throw new Error(`no revision of the ${this.type.noun} listed`);
    return revisionId;
  }

  missingId(): string {
    return `${this.themeTemplate.theme}//no-such-template`;
  }

  revisionOperations(): string[] {
    const { noun } = this.type;
    return [
      `list${noun}Revisions`,
      `get${noun}Revision`,
      `delete${noun}Revision`,
      `list${noun}Autosaves`,
      `create${noun}Autosave`,
      `get${noun}Autosave`,
    ];
  }

  /** The ids under a refused operation's path (see refusesUnauthorised). */
  refusedPath(operation: Operation): Record<string, string | number> {
    const id = this.created();
    if (!operation.path.includes('{parent}')) return { id };
    const ownId = operation.path.includes('/revisions/') ? this.revisionIds.at(0) : this.autosaveId;
    // Where they are not served, the example ids are as good as any.
    return ownId === undefined ? { parent: id } : { parent: id, id: ownId };
  }

  /** Lists for authenticated users only; finds the theme's own template (`themeTemplate`). */
  async listsForAuthenticatedOnly(): Promise<void> {
    const { h } = this;
    const { plural, route } = this.type;
    const list = await h.call(`list${plural}`, 200, {});
    const items = list.json as Json[];
    // The active block theme's own templates: whichever theme the site runs, nothing is assumed.
    this.themeTemplate = items.find((item) => item.source === 'theme') ?? items[0] ?? {};
    if (h.wordpress) {
      assert.ok(items.length > 0, `no ${route} listed`);
      assert.equal(this.themeTemplate.source, 'theme', `no ${route} from the theme's files`);
      assert.equal(this.themeTemplate.id, `${this.themeTemplate.theme}//${this.themeTemplate.slug}`);
    }
    const anonymous = await h.call(`list${plural}`, 401, { authenticate: false });
    h.expectWpError(anonymous, 'rest_cannot_manage_templates');
    if (
      h.notOnMock(
        `list${plural} per_page=101`,
        'the spec has no per_page here: WordPress ignores it, a mock need not',
      )
    )
      await h.call(`list${plural}`, 200, { query: { per_page: 101 } });
    const invalid = await h.call(`list${plural}`, 400, { query: { context: 'no-such-context' } });
    h.expectWpError(invalid, 'rest_invalid_param', { argument: 'context', code: 'rest_not_in_enum' });
  }

  /** Looks up the template for the theme template's slug (400 without one). */
  async looksUpBySlug(): Promise<void> {
    const { h } = this;
    const { noun } = this.type;
    const found = await h.call(`lookup${noun}`, 200, { query: { slug: this.themeTemplate.slug } });
    if (h.wordpress) {
      // The lookup follows the template hierarchy and only knows templates, for template parts too.
      const template = found.json as Json;
      assert.equal(template.type, 'wp_template');
      if (noun === 'Template') assert.equal(template.slug, this.themeTemplate.slug);
    }
    const missing = await h.call(`lookup${noun}`, 400, {});
    h.expectWpError(missing, 'rest_missing_callback_param');
  }

  /** Creates the walk's template (`id`), reads it, updates it with POST, PUT and PATCH. */
  async createsAndUpdates(): Promise<void> {
    const { h } = this;
    const { noun, extra } = this.type;
    const { runId } = h;
    const created = await h.call(`create${noun}`, 201, {
      body: {
        slug: this.slug,
        title: `Contract ${runId}`,
        content: '<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->',
        ...extra,
      },
    });
    const id: string = (created.json as Json).id;
    assert.equal(typeof id, 'string', `create${noun} answered no string id`);
    h.cleanup(`${noun} ${id}`, `delete${noun}`, { id });
    this.id = id;
    const invalid = await h.call(`create${noun}`, 400, { body: { slug: '' } });
    h.expectWpError(invalid, 'rest_invalid_param');
    const one = await h.call(`get${noun}`, 200, { path: { id } });
    if (h.mock) assert.equal((one.json as Json).id, id);
    const missing = await h.call(`get${noun}`, 404, { path: { id: this.missingId() } });
    h.expectWpError(missing, 'rest_template_not_found');
    // Each update with new content stores a revision (WordPress 6.4+ serves them, below).
    for (const operationId of [`update${noun}`, `replace${noun}`, `patch${noun}`]) {
      await h.call(operationId, 200, {
        path: { id },
        body: {
          title: `${operationId} ${runId}`,
          content: `<!-- wp:paragraph --><p>${operationId}</p><!-- /wp:paragraph -->`,
        },
      });
      // The mock's memory is what is under test there: the change is read back.
      if (h.mock) {
        const read = await h.call(`get${noun}`, 200, { path: { id } });
        assert.match(JSON.stringify((read.json as Json).title), new RegExp(operationId));
      }
      const invalid = await h.call(operationId, 400, {
        path: { id },
        body: { status: 'no-such-status' },
      });
      h.expectWpError(invalid, 'rest_invalid_param');
      const missingItem = await h.call(operationId, 404, {
        path: { id: this.missingId() },
        body: { title: 'x' },
      });
      h.expectWpError(missingItem, 'rest_template_not_found');
    }
  }

  /** Revisions (`revisionIds`) and an autosave (`autosaveId`) of the created template; where not served, 404. */
  async revisionsAndAutosaves(): Promise<void> {
    const { h } = this;
    const { noun } = this.type;
    const { runId } = h;
    const id = this.created();
    const reasons = this.revisionOperations().map(
      (operationId) => [operationId, h.unservable(h.validator.operation(operationId))] as const,
    );
    if (reasons.every(([, reason]) => reason)) {
      // Registered, but `templates/{id}` matches `<id>/revisions` first.
      for (const [operationId, options] of [
        [`list${noun}Revisions`, { path: { parent: id } }],
        [`get${noun}Revision`, { path: { parent: id, id: 1 } }],
        [`delete${noun}Revision`, { path: { parent: id, id: 1 }, query: { force: true } }],
        [`list${noun}Autosaves`, { path: { id } }],
        [`create${noun}Autosave`, { path: { id }, body: { title: `autosave ${runId}` } }],
        [`get${noun}Autosave`, { path: { parent: id, id: 1 } }],
      ] as const) {
        const result = await h.call(operationId, 404, options as CallOptions);
        h.expectWpError(result, 'rest_template_not_found');
        const reason = reasons.find(([name]) => name === operationId)?.[1];
        h.notServed.set(operationId, `${reason} (${(result.json as Json).code})`);
      }
      return;
    }
    assert.deepEqual(
      reasons.filter(([, reason]) => reason),
      [],
      'some revision operations are servable and some not',
    );
    const list = await h.call(`list${noun}Revisions`, 200, { path: { parent: id } });
    const revisions = list.json as Json[];
    this.revisionIds = revisions.map((revision) => revision.wp_id);
    if (h.wordpress) {
      assert.ok(revisions.length >= 2, `${revisions.length} revisions after three updates`);
      // A revision's `id` repeats the template's; its own id is `wp_id`.
      for (const revision of revisions) {
        assert.equal(revision.id, id);
        assert.equal(typeof revision.wp_id, 'number');
      }
      assert.equal(new Set(this.revisionIds).size, this.revisionIds.length, 'revision wp_ids repeat');
    } else {
      this.revisionIds = [5, 5];
    }
    const revision = await h.call(`get${noun}Revision`, 200, {
      path: { parent: id, id: this.revisionAt(0) },
    });
    if (h.wordpress) assert.equal((revision.json as Json).wp_id, this.revisionAt(0));
    const missing = await h.call(`get${noun}Revision`, 404, { path: { parent: id, id: MISSING_ID } });
    h.expectWpError(missing, 'rest_post_invalid_id');
    const tooMany = await h.call(`list${noun}Revisions`, 400, {
      path: { parent: id },
      query: { per_page: 101 },
    });
    h.expectWpError(tooMany, 'rest_invalid_param', { argument: 'per_page', code: 'rest_out_of_bounds' });
    const themeFile = await h.call(`list${noun}Revisions`, 400, { path: { parent: this.themeTemplate.id } });
    h.expectWpError(themeFile, 'rest_invalid_template');
    const missingParent = await h.call(`list${noun}Revisions`, 404, { path: { parent: this.missingId() } });
    h.expectWpError(missingParent, 'rest_post_invalid_parent');

    const created = await h.call(`create${noun}Autosave`, 200, {
      path: { id },
      body: {
        title: `autosave ${runId}`,
        content: '<!-- wp:paragraph --><p>autosave</p><!-- /wp:paragraph -->',
      },
    });
    const autosaves = await h.call(`list${noun}Autosaves`, 200, { path: { id } });
    if (h.wordpress) {
      this.autosaveId = (created.json as Json).wp_id;
      const listed = (autosaves.json as Json[]).map((autosave) => autosave.wp_id);
      assert.ok(
        listed.includes(this.autosaveId),
        `autosave ${this.autosaveId} not among ${listed.join(', ')}`,
      );
    }
    const autosave = await h.call(`get${noun}Autosave`, 200, { path: { parent: id, id: this.autosaveId } });
    if (h.wordpress) assert.equal((autosave.json as Json).title.raw, `autosave ${runId}`);
    const invalid = await h.call(`create${noun}Autosave`, 400, {
      path: { id },
      body: { status: 'no-such-status' },
    });
    h.expectWpError(invalid, 'rest_invalid_param');
    for (const operationId of [`list${noun}Autosaves`, `create${noun}Autosave`]) {
      const unknown = await h.call(operationId, 404, {
        path: { id: this.missingId() },
        body: operationId.startsWith('create') ? { title: 'x' } : undefined,
      });
      h.expectWpError(unknown, 'rest_post_invalid_parent');
    }
    const unknownParent = await h.call(`get${noun}Autosave`, 404, {
      path: { parent: this.missingId(), id: this.autosaveId },
    });
    h.expectWpError(unknownParent, 'rest_post_invalid_parent');
  }

  /** Deletes a revision with force (200), not without (501); where not served, 404. */
  async deletesRevision(): Promise<void> {
    const { h } = this;
    const { noun } = this.type;
    const id = this.created();
    if (h.unservable(h.validator.operation(`delete${noun}Revision`))) {
      // Registered, but `templates/{id}` matches `<id>/revisions` first (see "revisions and autosaves").
      for (const query of [{}, { force: true }]) {
        const missed = await h.call(`delete${noun}Revision`, 404, { path: { parent: id, id: 1 }, query });
        h.expectWpError(missed, 'rest_template_not_found');
      }
      return;
    }
    const revisionId = this.revisionAt(-1);
    const refused = await h.call(`delete${noun}Revision`, 501, { path: { parent: id, id: revisionId } });
    h.expectWpError(refused, 'rest_trash_not_supported');
    const deleted = await h.call(`delete${noun}Revision`, 200, {
      path: { parent: id, id: revisionId },
      query: { force: true },
    });
    if (h.wordpress) {
      assert.equal((deleted.json as Json).deleted, true);
      const gone = await h.call(`get${noun}Revision`, 404, { path: { parent: id, id: revisionId } });
      h.expectWpError(gone, 'rest_post_invalid_id');
    }
    const missing = await h.call(`delete${noun}Revision`, 404, {
      path: { parent: id, id: MISSING_ID },
      query: { force: true },
    });
    h.expectWpError(missing, 'rest_post_invalid_id');
  }

  /** Refuses to delete the theme's own template (400). */
  async refusesDeletingThemeTemplate(): Promise<void> {
    const { h } = this;
    const { noun } = this.type;
    const refused = await h.call(`delete${noun}`, 400, { path: { id: this.themeTemplate.id } });
    h.expectWpError(refused, 'rest_invalid_template');
  }

  /** Deletes the created template with force (and 404 afterwards). */
  async deletesWithForce(): Promise<void> {
    const { h } = this;
    const { noun } = this.type;
    const id = this.created();
    await h.call(`delete${noun}`, 200, { path: { id }, query: { force: true } });
    const gone = await h.call(`get${noun}`, 404, { path: { id } });
    h.expectWpError(gone, 'rest_template_not_found');
    const missing = await h.call(`delete${noun}`, 404, {
      path: { id: this.missingId() },
      query: { force: true },
    });
    h.expectWpError(missing, 'rest_template_not_found');
  }
}

export function templateScenarios(h: SiteHarness, type: TemplateType): Scenario[] {
  const walk = new TemplateWalk(h, type);
  const revisions = h.needsWordPress('revisions, which WordPress makes when a template is updated');
  const scenarios: Scenario[] = [
    {
      name: 'lists for authenticated users only; has no per_page',
      run: () => walk.listsForAuthenticatedOnly(),
    },
    {
      name: 'looks up the template for a slug (400 without one)',
      notApplicable: h.needsWordPress("the template hierarchy of the active theme's files"),
      run: () => walk.looksUpBySlug(),
    },
    { name: 'creates, reads, updates with POST, PUT and PATCH', run: () => walk.createsAndUpdates() },
    {
      name: 'revisions and autosaves (WordPress 6.4+; 6.1 cannot reach them)',
      notApplicable: revisions,
      run: () => walk.revisionsAndAutosaves(),
    },
    ...refusalScenarios(h, `/wp/v2/${type.route}`, (operation) => walk.refusedPath(operation)),
    {
      name: 'deletes a revision with force (200), not without (501); where not served, 404',
      notApplicable: revisions,
      run: () => walk.deletesRevision(),
    },
    {
      name: 'refuses to delete a template that comes from the theme (400)',
      notApplicable: h.needsWordPress("the active theme's files"),
      run: () => walk.refusesDeletingThemeTemplate(),
    },
    { name: 'deletes with force (and 404 afterwards)', run: () => walk.deletesWithForce() },
  ];
  return scenarios.map((scenario) => ({ ...scenario, name: `${type.plural} › ${scenario.name}` }));
}
