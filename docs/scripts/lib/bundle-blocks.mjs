// Parts of guides that come from the public platform bundle, so they cannot drift from the spec: a
// guide writes a directive comment and the build puts the bundle's content in its place (in the HTML
// that marked made, which keeps comments as they are).
//
//   <!-- bundle:webhook-headers -->          the delivery headers every webhook declares
//   <!-- bundle:webhook-examples -->         each webhook: its summary and its payload example
//   <!-- bundle:example NAME -->             components.examples.NAME as JSON
//   <!-- bundle:typescript OPERATION_ID -->  the operation's TypeScript sample (x-codeSamples, from
//                                            spec/samples: compiled and run by test/code-samples.test.ts),
//                                            pointed at the local server the guides use
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

/** A templated server's address with its variables' defaults (`{base_url}` → https://api.example.com). */
export const expandServer = (server) =>
  server.url.replace(/\{([^}]+)\}/g, (whole, name) => server.variables?.[name]?.default ?? whole);

function typescriptSample(bundle, operationId, server) {
  const operation = Object.values(bundle.paths ?? {})
    .flatMap((item) => Object.values(item))
    .find((candidate) => candidate?.operationId === operationId);
  if (!operation) throw new Error(`no operation ${operationId} in the bundle`);
  const sample = (operation['x-codeSamples'] ?? []).find(({ lang }) => lang === 'TypeScript');
  if (!sample) throw new Error(`${operationId} has no TypeScript sample`);
  // The samples name the production server (the first); the guides' commands use the local one.
  const base = bundle.servers?.[0] ? expandServer(bundle.servers[0]) : undefined;
  const source = base && server ? sample.source.split(base).join(server) : sample.source;
  return `<p class="code-label">TypeScript (<code>@platform-api/client</code>)</p>\n${codeBlock(source, 'typescript')}`;
}

/**
 * Replaces the directives in rendered HTML with HTML made from the bundle. Unknown directives fail
 * the build, so a typo cannot silently drop content. `server` is the address samples are pointed at.
 */
export function expandBundleBlocks(html, bundle, { server } = {}) {
  return html.replace(/<!--\s*bundle:([\w-]+)(?:\s+([\w-]+))?\s*-->/g, (_, kind, argument) => {
    if (kind === 'webhook-headers') return webhookHeaders(bundle);
    if (kind === 'webhook-examples') return webhookExamples(bundle);
    if (kind === 'example' && argument) return namedExample(bundle, argument);
    if (kind === 'typescript' && argument) return typescriptSample(bundle, argument, server);
    throw new Error(`unknown docs directive bundle:${kind}`);
  });
}
