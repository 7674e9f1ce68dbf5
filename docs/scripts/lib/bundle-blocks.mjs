// Parts of guides that come from the public platform bundle, so they cannot drift from the spec: a
// guide writes a directive comment and the build puts the bundle's content in its place (in the HTML
// that marked made, which keeps comments as they are).
//
//   <!-- bundle:webhook-headers -->          the delivery headers every webhook declares
//   <!-- bundle:webhook-examples -->         each webhook: its summary and its payload example
//   <!-- bundle:example NAME -->             components.examples.NAME as JSON
//
// On GitHub the comments are invisible; the rendered docs carry the content.
import { codeBlock, escapeHtml, renderMarkdown } from './markdown.mjs';

/** Resolves a local `$ref` (`#/components/...`) of the bundle; other values pass through. */
function deref(bundle, value) {
  let current = value;
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], bundle);
    if (current === undefined) throw new Error(`unresolved $ref ${value.$ref}`);
  }
  return current;
}

const inlineMarkdown = (text) => renderMarkdown(text).html.replace(/^<p>|<\/p>\n?$/g, '');

/** The webhooks of the bundle: `[{ name, operation }]` (POST, the only method webhooks use here). */
function webhooks(bundle) {
  return Object.entries(bundle.webhooks ?? {}).map(([name, item]) => ({ name, operation: item.post }));
}

function webhookHeaders(bundle) {
  const [first] = webhooks(bundle);
  if (!first) throw new Error('the bundle has no webhooks');
  const rows = (first.operation.parameters ?? [])
    .map((parameter) => deref(bundle, parameter))
    .filter((parameter) => parameter.in === 'header')
    .map(
      (parameter) =>
        `<tr><td><code>${escapeHtml(parameter.name)}</code></td><td>${parameter.required ? 'always' : 'when signing is on'}</td><td>${inlineMarkdown(parameter.description ?? '')}</td></tr>`,
    );
  return `<div class="table-scroll" role="region" aria-label="Delivery headers" tabindex="0"><table>
<thead><tr><th>header</th><th>sent</th><th>meaning</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>`;
}

function webhookExamples(bundle) {
  return webhooks(bundle)
    .map(({ name, operation }) => {
      const media = operation.requestBody && deref(bundle, operation.requestBody).content['application/json'];
      const examples = Object.values(media?.examples ?? {}).map((example) => deref(bundle, example));
      if (examples.length === 0) throw new Error(`webhook ${name} has no example payload`);
      const id = `event-${name.toLowerCase().replace(/_/g, '-')}`;
      return `<h3 id="${id}"><code>${escapeHtml(name)}</code> — ${escapeHtml(operation.summary ?? '')}</h3>
${examples.map((example) => codeBlock(JSON.stringify(example.value, null, 2), 'json')).join('\n')}`;
    })
    .join('\n');
}

function namedExample(bundle, name) {
  const example = bundle.components?.examples?.[name];
  if (!example) throw new Error(`components.examples.${name} is not in the bundle`);
  return codeBlock(JSON.stringify(deref(bundle, example).value, null, 2), 'json');
}

/**
 * Replaces the directives in rendered HTML with HTML made from the bundle. Unknown directives fail
 * the build, so a typo cannot silently drop content.
 */
export function expandBundleBlocks(html, bundle) {
  return html.replace(/<!--\s*bundle:([\w-]+)(?:\s+([\w-]+))?\s*-->/g, (_, kind, argument) => {
    if (kind === 'webhook-headers') return webhookHeaders(bundle);
    if (kind === 'webhook-examples') return webhookExamples(bundle);
    if (kind === 'example' && argument) return namedExample(bundle, argument);
    throw new Error(`unknown docs directive bundle:${kind}`);
  });
}
