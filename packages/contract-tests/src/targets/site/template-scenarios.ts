// Scenarios of block templates and template parts: the active theme's own (found by listing, whichever
// theme the site runs), lookup by slug, create/read/update, revisions and autosaves (WordPress 6.4+; older
// versions route `templates/{id}/revisions` to the template itself and answer 404), who is refused, and
// deletion (a theme's own template cannot be deleted). The mock with memory keeps what is created; the
// theme's files (lookup, deletion refused) and revisions are WordPress's alone.
import assert from 'node:assert/strict';
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

export function templateScenarios(h: SiteHarness, type: TemplateType): Scenario[] {
  const { noun, route, plural, extra } = type;
  const { runId } = h;
  let id: string;
  /** A template of the active theme that only exists as a theme file, found by listing. */
  let fromTheme: Json = {};
  /** The revisions' and autosave's own ids (`wp_id`), on a WordPress that serves them. */
  let revisionIds: number[] = [];
  let autosaveId = 1;
  const revisionAt = (index: number): number => {
    const revisionId = revisionIds.at(index);
    if (revisionId === undefined) throw new Error(`no revision of the ${noun} listed`);
    return revisionId;
  };
  const slug = `contract-${runId}-${noun.toLowerCase()}`;
  const missingId = () => `${fromTheme.theme}//no-such-template`;
  const revisionOperations = [
    `list${noun}Revisions`,
    `get${noun}Revision`,
    `delete${noun}Revision`,
    `list${noun}Autosaves`,
    `create${noun}Autosave`,
    `get${noun}Autosave`,
  ];

  const scenarios: Scenario[] = [
    {
      name: 'lists for authenticated users only; has no per_page',
      run: async () => {
        const list = await h.call(`list${plural}`, 200, {});
        const items = list.json as Json[];
        // The active block theme's own templates: whichever theme the site runs, nothing is assumed.
        fromTheme = items.find((item) => item.source === 'theme') ?? items[0] ?? {};
        if (h.wordpress) {
          assert.ok(items.length > 0, `no ${route} listed`);
          assert.equal(fromTheme.source, 'theme', `no ${route} from the theme's files`);
          assert.equal(fromTheme.id, `${fromTheme.theme}//${fromTheme.slug}`);
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
      },
    },
    {
      name: 'looks up the template for a slug (400 without one)',
      notApplicable: h.needsWordPress("the template hierarchy of the active theme's files"),
      run: async () => {
        const found = await h.call(`lookup${noun}`, 200, { query: { slug: fromTheme.slug } });
        if (h.wordpress) {
          // The lookup follows the template hierarchy and only knows templates, for template parts too.
          const template = found.json as Json;
          assert.equal(template.type, 'wp_template');
          if (noun === 'Template') assert.equal(template.slug, fromTheme.slug);
        }
        const missing = await h.call(`lookup${noun}`, 400, {});
        h.expectWpError(missing, 'rest_missing_callback_param');
      },
    },
    {
      name: 'creates, reads, updates with POST, PUT and PATCH',
      run: async () => {
        const created = await h.call(`create${noun}`, 201, {
          body: {
            slug,
            title: `Contract ${runId}`,
            content: '<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->',
            ...extra,
          },
        });
        id = (created.json as Json).id;
        assert.equal(typeof id, 'string', `create${noun} answered no string id`);
        h.cleanup(`${noun} ${id}`, `delete${noun}`, { id });
        const invalid = await h.call(`create${noun}`, 400, { body: { slug: '' } });
        h.expectWpError(invalid, 'rest_invalid_param');
        const one = await h.call(`get${noun}`, 200, { path: { id } });
        if (h.mock) assert.equal((one.json as Json).id, id);
        const missing = await h.call(`get${noun}`, 404, { path: { id: missingId() } });
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
            path: { id: missingId() },
            body: { title: 'x' },
          });
          h.expectWpError(missingItem, 'rest_template_not_found');
        }
      },
    },
    {
      name: 'revisions and autosaves (WordPress 6.4+; 6.1 cannot reach them)',
      notApplicable: h.needsWordPress('revisions, which WordPress makes when a template is updated'),
      run: async () => {
        const reasons = revisionOperations.map(
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
        revisionIds = revisions.map((revision) => revision.wp_id);
        if (h.wordpress) {
          assert.ok(revisions.length >= 2, `${revisions.length} revisions after three updates`);
          // A revision's `id` repeats the template's; its own id is `wp_id`.
          for (const revision of revisions) {
            assert.equal(revision.id, id);
            assert.equal(typeof revision.wp_id, 'number');
          }
          assert.equal(new Set(revisionIds).size, revisionIds.length, 'revision wp_ids repeat');
        } else {
          revisionIds = [5, 5];
        }
        const revision = await h.call(`get${noun}Revision`, 200, { path: { parent: id, id: revisionAt(0) } });
        if (h.wordpress) assert.equal((revision.json as Json).wp_id, revisionAt(0));
        const missing = await h.call(`get${noun}Revision`, 404, { path: { parent: id, id: MISSING_ID } });
        h.expectWpError(missing, 'rest_post_invalid_id');
        const tooMany = await h.call(`list${noun}Revisions`, 400, {
          path: { parent: id },
          query: { per_page: 101 },
        });
        h.expectWpError(tooMany, 'rest_invalid_param', { argument: 'per_page', code: 'rest_out_of_bounds' });
        const themeFile = await h.call(`list${noun}Revisions`, 400, { path: { parent: fromTheme.id } });
        h.expectWpError(themeFile, 'rest_invalid_template');
        const missingParent = await h.call(`list${noun}Revisions`, 404, { path: { parent: missingId() } });
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
          autosaveId = (created.json as Json).wp_id;
          const listed = (autosaves.json as Json[]).map((autosave) => autosave.wp_id);
          assert.ok(listed.includes(autosaveId), `autosave ${autosaveId} not among ${listed.join(', ')}`);
        }
        const autosave = await h.call(`get${noun}Autosave`, 200, { path: { parent: id, id: autosaveId } });
        if (h.wordpress) assert.equal((autosave.json as Json).title.raw, `autosave ${runId}`);
        const invalid = await h.call(`create${noun}Autosave`, 400, {
          path: { id },
          body: { status: 'no-such-status' },
        });
        h.expectWpError(invalid, 'rest_invalid_param');
        for (const operationId of [`list${noun}Autosaves`, `create${noun}Autosave`]) {
          const unknown = await h.call(operationId, 404, {
            path: { id: missingId() },
            body: operationId.startsWith('create') ? { title: 'x' } : undefined,
          });
          h.expectWpError(unknown, 'rest_post_invalid_parent');
        }
        const unknownParent = await h.call(`get${noun}Autosave`, 404, {
          path: { parent: missingId(), id: autosaveId },
        });
        h.expectWpError(unknownParent, 'rest_post_invalid_parent');
      },
    },
    ...refusalScenarios(h, `/wp/v2/${route}`, (operation): Record<string, string | number> => {
      if (!operation.path.includes('{parent}')) return { id };
      const ownId = operation.path.includes('/revisions/') ? revisionIds.at(0) : autosaveId;
      // Where they are not served, the example ids are as good as any (see refusesUnauthorised).
      return ownId === undefined ? { parent: id } : { parent: id, id: ownId };
    }),
    {
      name: 'deletes a revision with force (200), not without (501); where not served, 404',
      notApplicable: h.needsWordPress('revisions, which WordPress makes when a template is updated'),
      run: async () => {
        if (h.unservable(h.validator.operation(`delete${noun}Revision`))) {
          // Registered, but `templates/{id}` matches `<id>/revisions` first (see "revisions and autosaves").
          for (const query of [{}, { force: true }]) {
            const missed = await h.call(`delete${noun}Revision`, 404, { path: { parent: id, id: 1 }, query });
            h.expectWpError(missed, 'rest_template_not_found');
          }
          return;
        }
        const revisionId = revisionAt(-1);
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
      },
    },
    {
      name: 'refuses to delete a template that comes from the theme (400)',
      notApplicable: h.needsWordPress("the active theme's files"),
      run: async () => {
        const refused = await h.call(`delete${noun}`, 400, { path: { id: fromTheme.id } });
        h.expectWpError(refused, 'rest_invalid_template');
      },
    },
    {
      name: 'deletes with force (and 404 afterwards)',
      run: async () => {
        await h.call(`delete${noun}`, 200, { path: { id }, query: { force: true } });
        const gone = await h.call(`get${noun}`, 404, { path: { id } });
        h.expectWpError(gone, 'rest_template_not_found');
        const missing = await h.call(`delete${noun}`, 404, {
          path: { id: missingId() },
          query: { force: true },
        });
        h.expectWpError(missing, 'rest_template_not_found');
      },
    },
  ];
  return scenarios.map((scenario) => ({ ...scenario, name: `${plural} › ${scenario.name}` }));
}
