// Scenarios of the media library: raw uploads named by Content-Disposition, sideloading from a URL and
// uploads without sub-sizes (where the version has them), post-processing, image edits, who is refused,
// and deletion (media has no trash: 501 without force). The mock with memory keeps an upload as an item
// (read, changed, deleted) but processes no file: what WordPress makes of the file is WordPress's alone.
import assert from 'node:assert/strict';
import type { CallOptions } from '../../client.js';
import { deletedNotListed, paginationSemantics } from '../../run/phases/pagination.js';
import { assertIncludesAll, type Json, MISSING_ID, NO_ROLES, type SiteHarness } from './harness.js';
import { pngImage } from './png.js';
import { refusalScenarios, type Scenario } from './scenario.js';

/** Why an anonymous edit context is WordPress's to refuse (as for posts). */
const EDIT_CONTEXT =
  'WordPress refuses the edit context to an anonymous caller; the mock serves it as a tenant of its own';

/**
 * One walk through the media routes, in the order of `mediaScenarios`: each step is a method, and what a
 * step leaves for the later ones is a field, set by the step its comment names.
 */
class MediaWalk {
  /** The walk's upload: set by uploads. */
  private file: { id: number; sourceUrl: string } | undefined;

  constructor(readonly h: SiteHarness) {}

  uploaded(): { id: number; sourceUrl: string } {
    if (this.file === undefined) throw new Error('no media uploaded (its upload scenario did not pass)');
    return this.file;
  }

  /** A raw upload of a PNG named `filename`. */
  upload(filename: string, authenticate?: boolean): CallOptions {
    return {
      body: pngImage(),
      contentType: 'image/png',
      headers: { 'content-disposition': `attachment; filename=${filename}` },
      authenticate,
    };
  }

  /** Lists within per_page bounds; the edit context is refused anonymously. */
  async listsWithinBounds(): Promise<void> {
    const { h } = this;
    await h.call('listMedia', 200, { authenticate: false });
    if (h.wordPressStep('listMedia context=edit anonymously', EDIT_CONTEXT)) {
      const editContext = await h.call('listMedia', 401, {
        query: { context: 'edit' },
        authenticate: false,
      });
      h.expectWpError(editContext, 'rest_forbidden_context');
    }
    for (const perPage of [0, 101]) {
      const result = await h.call('listMedia', 400, { query: { per_page: perPage } });
      h.expectWpError(result, 'rest_invalid_param', { argument: 'per_page', code: 'rest_out_of_bounds' });
    }
  }

  /** Uploads the walk's file (`id`, `sourceUrl`) with Content-Disposition (201), not anonymously (401). */
  async uploads(): Promise<void> {
    const { h } = this;
    const { runId } = h;
    const anonymous = await h.call('createMedia', 401, this.upload('anonymous.png', false));
    h.expectWpError(anonymous, 'rest_cannot_create');
    if (
      h.wordPressStep(
        'createMedia without Content-Disposition',
        'the spec says the header is required for a raw upload in prose; its schema cannot say so',
      )
    ) {
      const unnamed = await h.call('createMedia', 400, { body: pngImage(), contentType: 'image/png' });
      h.expectWpError(unnamed, 'rest_upload_no_content_disposition');
    }
    const created = await h.call('createMedia', 201, this.upload(`contract-${runId}.png`));
    const id = h.idOf(created);
    this.file = { id, sourceUrl: (created.json as Json).source_url };
    h.cleanup(`media ${id}`, 'deleteMedia', { id });
    if (h.mock) assert.match(created.headers.get('location') ?? '', new RegExp(`/${id}$`));
    if (h.notOnMock('createMedia mime_type', 'the mock keeps no file: its items lend the example’s'))
      assert.equal((created.json as Json).mime_type, 'image/png');
  }

  /** Reads the upload and updates it with POST, PUT and PATCH. */
  async readsAndUpdates(): Promise<void> {
    const { h } = this;
    const { runId } = h;
    const { id } = this.uploaded();
    const one = await h.call('getMedia', 200, { path: { id } });
    if (h.mock) assert.equal((one.json as Json).id, id);
    // The library holds what the run uploaded: walked page by page (pagination_semantics).
    if (h.stateful) await paginationSemantics(h.session, h.validator.operation('listMedia'), {}, h.client);
    // Past the last page is 400 only when there is a page at all: the library now holds `id`.
    const pastTheEnd = await h.call('listMedia', 400, { query: { page: 100000 } });
    h.expectWpError(pastTheEnd, 'rest_post_invalid_page_number');
    const missing = await h.call('getMedia', 404, { path: { id: MISSING_ID } });
    h.expectWpError(missing, 'rest_post_invalid_id');
    for (const operationId of ['updateMedia', 'replaceMedia', 'patchMedia']) {
      const result = await h.call(operationId, 200, {
        path: { id },
        body: { alt_text: `${operationId} ${runId}` },
      });
      if (h.stateful) assert.equal((result.json as Json).alt_text, `${operationId} ${runId}`);
      // The mock's memory is what is under test there: the change is read back.
      if (h.mock) {
        const read = await h.call('getMedia', 200, { path: { id } });
        assert.equal((read.json as Json).alt_text, `${operationId} ${runId}`);
      }
      const invalid = await h.call(operationId, 400, {
        path: { id },
        body: { status: 'no-such-status' },
      });
      h.expectWpError(invalid, 'rest_invalid_param');
      const missingItem = await h.call(operationId, 404, {
        path: { id: MISSING_ID },
        body: { alt_text: 'x' },
      });
      h.expectWpError(missingItem, 'rest_post_invalid_id');
    }
    if (h.wordPressStep('getMedia context=edit anonymously', EDIT_CONTEXT))
      await h.call('getMedia', 401, { path: { id }, query: { context: 'edit' }, authenticate: false });
    if (h.wordPressStep('getMedia context=edit as a subscriber', NO_ROLES))
      await h.call('getMedia', 403, { path: { id }, query: { context: 'edit' } }, h.subscriber);
  }

  /** Fetches an image from the upload's URL (sideload), and uploads with and without sub-sizes. */
  async sideloadsAndSubSizes(): Promise<void> {
    const { h } = this;
    const { runId } = h;
    const { id, sourceUrl } = this.uploaded();
    // Before their x-wp-since, WordPress does not know the arguments and ignores them.
    const noSideload = h.tooOld('createMedia', 'url');
    const noSubSizesChoice = h.tooOld('createMedia', 'generate_sub_sizes');
    if (noSideload) {
      // A JSON body without `url`'s meaning is an upload of that body, which names no file.
      const refused = await h.call('createMedia', 400, {
        body: { url: sourceUrl, post: h.fixture.post },
      });
      h.expectWpError(refused, 'rest_upload_no_content_disposition');
    } else {
      const sideloaded = await h.call('createMedia', 201, {
        body: { url: sourceUrl, post: h.fixture.post },
      });
      const sideloadedId = h.idOf(sideloaded);
      h.cleanup(`sideloaded media ${sideloadedId}`, 'deleteMedia', { id: sideloadedId });
      if (h.wordpress) {
        assert.notEqual(sideloadedId, id);
        assert.equal((sideloaded.json as Json).post, h.fixture.post);
        assert.equal((sideloaded.json as Json).mime_type, 'image/png');
      }
    }
    // An image big enough for WordPress's thumbnail and medium sizes, uploaded with and without them.
    const sizes: string[][] = [];
    for (const generate of [true, false]) {
      const created = await h.call('createMedia', 201, {
        body: pngImage(400, 300),
        contentType: 'image/png',
        headers: { 'content-disposition': `attachment; filename=contract-${runId}-${generate}.png` },
        query: { generate_sub_sizes: generate, convert_format: false },
      });
      const createdId = h.idOf(created);
      h.cleanup(`media ${createdId}`, 'deleteMedia', { id: createdId });
      sizes.push(Object.keys((created.json as Json).media_details?.sizes ?? {}));
    }
    if (h.wordpress) {
      assertIncludesAll(sizes[0], ['thumbnail', 'medium'], 'sub-sizes generated');
      if (noSubSizesChoice)
        assertIncludesAll(sizes[1], ['thumbnail', 'medium'], 'sub-sizes (choice ignored)');
      else assert.deepEqual(sizes[1], [], 'sub-sizes with generate_sub_sizes=false');
    }
  }

  /** Post-processes the upload (200) and edits it (201; 400 without src). */
  async processesAndEdits(): Promise<void> {
    const { h } = this;
    const { runId } = h;
    const { id, sourceUrl } = this.uploaded();
    await h.call('postProcessMedia', 200, { path: { id }, body: { action: 'create-image-subsizes' } });
    const invalid = await h.call('postProcessMedia', 400, {
      path: { id },
      body: { action: 'no-such-action' },
    });
    h.expectWpError(invalid, 'rest_invalid_param');
    const rotate = [{ type: 'rotate', args: { angle: 90 } }];
    const withoutSrc = await h.call('editMedia', 400, { path: { id }, body: { modifiers: rotate } });
    h.expectWpError(withoutSrc, 'rest_missing_callback_param');
    // Since 6.9 an edit may also name the new attachment's fields.
    const fields = h.tooOld('editMedia', 'alt_text')
      ? {}
      : { alt_text: `edited ${runId}`, title: `edited ${runId}` };
    const edited = await h.call('editMedia', 201, {
      path: { id },
      body: { src: sourceUrl, modifiers: rotate, ...fields },
    });
    const editedId = h.idOf(edited);
    h.cleanup(`edited media ${editedId}`, 'deleteMedia', { id: editedId });
    if (h.wordpress) {
      assert.notEqual(editedId, id);
      if ('alt_text' in fields) assert.equal((edited.json as Json).alt_text, fields.alt_text);
    }
    await h.call('editMedia', 404, {
      path: { id: MISSING_ID },
      body: { src: sourceUrl, modifiers: rotate },
    });
    await h.call('postProcessMedia', 404, {
      path: { id: MISSING_ID },
      body: { action: 'create-image-subsizes' },
    });
  }

  /** Refuses to trash the upload (501), deletes it with force. */
  async deletesWithForce(): Promise<void> {
    const { h } = this;
    const { id } = this.uploaded();
    const refused = await h.call('deleteMedia', 501, { path: { id } });
    h.expectWpError(refused, 'rest_trash_not_supported');
    const deleted = await h.call('deleteMedia', 200, { path: { id }, query: { force: true } });
    if (h.stateful) assert.equal((deleted.json as Json).deleted, true);
    if (h.stateful) await deletedNotListed(h.session, deleted, h.client);
    const gone = await h.call('getMedia', 404, { path: { id } });
    h.expectWpError(gone, 'rest_post_invalid_id');
    const missing = await h.call('deleteMedia', 404, {
      path: { id: MISSING_ID },
      query: { force: true },
    });
    h.expectWpError(missing, 'rest_post_invalid_id');
  }
}

export function mediaScenarios(h: SiteHarness): Scenario[] {
  const walk = new MediaWalk(h);
  const scenarios: Scenario[] = [
    { name: 'lists, within per_page bounds', run: () => walk.listsWithinBounds() },
    {
      name: 'uploads a raw file with Content-Disposition (201), not anonymously (401)',
      run: () => walk.uploads(),
    },
    { name: 'reads and updates with POST, PUT and PATCH', run: () => walk.readsAndUpdates() },
    {
      name: 'fetches an image from a URL (sideload), and uploads without sub-sizes; older versions ignore both',
      notApplicable: h.needsWordPress('media processing (fetching a URL, generating sub-sizes)'),
      run: () => walk.sideloadsAndSubSizes(),
    },
    {
      name: 'post-processes (200) and edits (201; 400 without src)',
      notApplicable: h.needsWordPress('media processing (sub-sizes, image edits)'),
      run: () => walk.processesAndEdits(),
    },
    ...refusalScenarios(h, '/wp/v2/media', () => ({ id: walk.uploaded().id })),
    { name: 'refuses to trash (501), deletes with force', run: () => walk.deletesWithForce() },
  ];
  return scenarios.map((scenario) => ({ ...scenario, name: `media › ${scenario.name}` }));
}
