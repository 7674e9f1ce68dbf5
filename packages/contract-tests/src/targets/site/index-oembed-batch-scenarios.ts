// Scenarios of the index routes, oEmbed and batch/v1: the namespaces a site lists, embedding its own post
// (JSON and XML; the proxy for editors only) and the batch endpoint's limits (25 requests, no GET,
// require-all-validate, routes that do not allow batching). The mock with memory answers oEmbed and a
// batch with the spec's examples: it neither renders its posts nor runs the batched requests.
import assert from 'node:assert/strict';
import { exampleRequest } from '../../examples.js';
import { assertIncludesAll, type Json, MISSING_ID, type SiteHarness } from './harness.js';
import type { Scenario } from './scenario.js';

export function indexScenarios(h: SiteHarness): Scenario[] {
  return [
    {
      name: 'index routes › serves the site index, with route descriptions in the help context',
      run: async () => {
        const index = await h.call('getIndex', 200, { authenticate: false });
        const help = await h.call('getIndex', 200, { query: { context: 'help' } });
        if (h.wordpress) {
          assertIncludesAll((index.json as Json).namespaces, ['wp/v2', 'oembed/1.0'], 'namespaces');
          assertIncludesAll(Object.keys((help.json as Json).routes), ['/batch/v1'], 'routes');
        }
      },
    },
    {
      name: 'index routes › serves the namespace indexes',
      run: async () => {
        const v2 = await h.call('getWpV2Index', 200, { authenticate: false });
        const oembed = await h.call('getOembedIndex', 200, { authenticate: false });
        if (h.wordpress) {
          assert.equal((v2.json as Json).namespace, 'wp/v2');
          assert.equal((oembed.json as Json).namespace, 'oembed/1.0');
        }
      },
    },
    {
      name: 'index routes › plugin namespace index (not served by core WordPress)',
      run: async () => {
        const operation = h.validator.operation('getPluginNamespaceIndex');
        const reason = h.unservable(operation);
        const request = exampleRequest(h.validator, operation);
        const result = await h.call('getPluginNamespaceIndex', reason ? 404 : 200, { path: request.path });
        if (reason) {
          h.notServed.set('getPluginNamespaceIndex', `${reason} (answers 404 ${(result.json as Json).code})`);
          h.expectWpError(result, 'rest_no_route');
        }
      },
    },
    {
      name: 'index routes › batch/v1 namespace index (named by the site route list; no WordPress registers it)',
      run: async () => {
        const reason = h.unservable(h.validator.operation('getBatchIndex'));
        const result = await h.call('getBatchIndex', reason ? 404 : 200, { authenticate: false });
        if (reason) {
          h.notServed.set('getBatchIndex', `${reason} (answers 404 ${(result.json as Json).code})`);
          h.expectWpError(result, 'rest_no_route');
          const index = await h.call('getIndex', 200, { authenticate: false });
          const namespaces = (index.json as Json).namespaces as unknown[];
          assert.ok(!namespaces.includes('batch/v1'), `the index lists batch/v1: ${namespaces.join(', ')}`);
        } else {
          assert.equal((result.json as Json).namespace, 'batch/v1');
        }
      },
    },
  ];
}

export function oembedScenarios(h: SiteHarness): Scenario[] {
  // The scenarios' own published post (see SiteHarness.fixture).
  const localUrl = () => h.fixture.postLink;
  const notApplicable = h.needsWordPress("oEmbed of the site's own posts (the mock answers its examples)");
  return [
    {
      name: 'oEmbed › embeds a local post as JSON and as XML',
      notApplicable,
      run: async () => {
        const json = await h.call('getOembed', 200, { query: { url: localUrl() }, authenticate: false });
        const xml = await h.call('getOembed', 200, {
          query: { url: localUrl(), format: 'xml' },
          headers: { accept: 'text/xml' },
          authenticate: false,
        });
        assert.match(xml.headers.get('content-type') ?? '', /xml/);
        assert.match(xml.text, /<oembed>/);
        if (h.wordpress) assert.equal((json.json as Json).type, 'rich');
      },
    },
    {
      name: 'oEmbed › rejects a missing url (400) and an unknown one (404)',
      notApplicable,
      run: async () => {
        const missing = await h.call('getOembed', 400, { authenticate: false });
        h.expectWpError(missing, 'rest_missing_callback_param');
        const unknown = await h.call('getOembed', 404, {
          query: { url: `${localUrl()}no-such-page/` },
          authenticate: false,
        });
        h.expectWpError(unknown, 'oembed_invalid_url');
      },
    },
    {
      name: 'oEmbed › proxies for authenticated users only',
      notApplicable,
      run: async () => {
        const anonymous = await h.call('getOembedProxy', 401, {
          query: { url: localUrl() },
          authenticate: false,
        });
        h.expectWpError(anonymous, 'rest_forbidden');
        await h.call('getOembedProxy', 200, { query: { url: localUrl() } });
        // Proxying needs edit_posts: a logged-in subscriber is refused.
        const refused = await h.call('getOembedProxy', 403, { query: { url: localUrl() } }, h.subscriber);
        h.expectWpError(refused, 'rest_forbidden');
        const unknown = await h.call('getOembedProxy', 404, { query: { url: `${localUrl()}no-such-page/` } });
        h.expectWpError(unknown, 'oembed_invalid_url');
        const missing = await h.call('getOembedProxy', 400, {});
        h.expectWpError(missing, 'rest_missing_callback_param');
      },
    },
  ];
}

export function batchScenarios(h: SiteHarness): Scenario[] {
  const draft = (title: string) => ({
    method: 'POST',
    path: '/wp/v2/posts',
    body: { title, status: 'draft' },
  });
  const { runId } = h;
  const notApplicable = h.needsWordPress('running the batched requests (the mock answers its example)');
  return [
    {
      name: 'batch › answers an empty batch with 207 and no responses',
      notApplicable,
      run: async () => {
        const result = await h.call('createBatch', 207, { body: { requests: [] } });
        if (h.wordpress) assert.deepEqual(result.json, { responses: [] });
      },
    },
    {
      name: 'batch › runs a batch of creates (207, one response per request)',
      notApplicable,
      run: async () => {
        const result = await h.call('createBatch', 207, {
          body: { requests: [draft(`contract ${runId} batch 1`), draft(`contract ${runId} batch 2`)] },
        });
        if (!h.wordpress) return;
        const responses = (result.json as Json).responses as Json[];
        // Cleanups first, so that what was created is deleted even when an assertion below fails.
        for (const response of responses)
          if (typeof response?.body?.id === 'number')
            h.cleanup(`batch post ${response.body.id}`, 'deletePost', { id: response.body.id });
        assert.deepEqual(
          responses.map((response) => response.status),
          [201, 201],
        );
        for (const response of responses)
          assert.ok('Location' in response.headers, `no Location: ${JSON.stringify(response.headers)}`);
      },
    },
    {
      name: 'batch › require-all-validate: nothing runs when one request is invalid',
      notApplicable,
      run: async () => {
        const result = await h.call('createBatch', 207, {
          body: {
            validation: 'require-all-validate',
            requests: [
              draft(`contract ${runId} never`),
              { path: '/wp/v2/posts', body: { status: 'no-such-status' } },
            ],
          },
        });
        if (!h.wordpress) return;
        const body = result.json as Json;
        assert.equal(body.failed, 'validation');
        assert.equal(body.responses[0], null);
        assert.equal(body.responses[1].status, 400);
        assert.equal(body.responses[1].body.code, 'rest_invalid_param');
      },
    },
    {
      name: 'batch › refuses routes that do not allow batching, per item',
      notApplicable,
      run: async () => {
        // The route decides, before any item is looked up: an id that names nothing is enough.
        const result = await h.call('createBatch', 207, {
          body: {
            requests: [{ method: 'POST', path: `/wp/v2/media/${MISSING_ID}`, body: { alt_text: 'x' } }],
          },
        });
        if (h.wordpress) {
          const item = (result.json as Json).responses[0];
          assert.equal(item.status, 400);
          assert.equal(item.body.code, 'rest_batch_not_allowed');
        }
      },
    },
    {
      name: 'batch › rejects more than 25 requests and GET requests (400 rest_invalid_param)',
      run: async () => {
        const tooMany = await h.call('createBatch', 400, {
          body: { requests: Array.from({ length: 26 }, (_, i) => draft(`contract ${runId} ${i}`)) },
        });
        h.expectWpError(tooMany, 'rest_invalid_param', { argument: 'requests', code: 'rest_too_many_items' });
        const get = await h.call('createBatch', 400, {
          body: { requests: [{ method: 'GET', path: '/wp/v2/posts' }] },
        });
        h.expectWpError(get, 'rest_invalid_param', { argument: 'requests', code: 'rest_not_in_enum' });
      },
    },
  ];
}
