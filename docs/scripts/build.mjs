// Builds the static docs site into dist/, all of it readable offline (no request leaves the machine):
// - platform.html, site.html: Redoc references (scripts inlined) of the public platform bundle and the
//   content site bundle, with the site's header;
// - guides/*.html: docs/guides/*.md and the reference server's apps/server/docs/*.md, rendered by marked
//   with highlight.js, parts of the events guide filled from the bundle;
// - changelog.html, index.html (the landing page with the quick start), assets/.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTP_METHODS } from '@platform-api/validator';
import { expandBundleBlocks } from './lib/bundle-blocks.mjs';
import { page, siteHeader } from './lib/layout.mjs';
import { escapeHtml, renderMarkdown } from './lib/markdown.mjs';
import { patchRedocPage } from './lib/redoc.mjs';

const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(docsDir, 'dist');
const siteDir = join(docsDir, 'site');
const config = join(docsDir, '..', 'redocly.yaml');
const redocly = join(docsDir, 'node_modules', '.bin', 'redocly');
const require = createRequire(import.meta.url);
const readBundle = (name) =>
  JSON.parse(readFileSync(require.resolve(`@platform-api/spec/${name}.openapi.json`), 'utf8'));

/** The reference pages: the public platform API (x-internal removed) and the content site API. */
export const references = [
  {
    alias: 'platform-public@v1',
    bundle: 'platform-public',
    file: 'platform.html',
    title: 'Platform API reference',
  },
  { alias: 'site@v2', bundle: 'site', file: 'site.html', title: 'Content site API reference' },
];

/** Guide order in the navigation; guides not listed follow alphabetically. */
const guideOrder = ['getting-started', 'events', 'delivery', 'benchmarks'];

rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'guides'), { recursive: true });
mkdirSync(join(dist, 'assets'), { recursive: true });
copyFileSync(join(siteDir, 'style.css'), join(dist, 'assets', 'site.css'));
copyFileSync(join(siteDir, 'favicon.svg'), join(dist, 'assets', 'favicon.svg'));

for (const { alias, file, title } of references) {
  const output = join(dist, file);
  execFileSync(
    redocly,
    ['build-docs', alias, '--config', config, '--inlineBundle', '--title', title, '--output', output],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      cwd: docsDir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
    },
  );
  writeFileSync(
    output,
    patchRedocPage(readFileSync(output, 'utf8'), siteHeader({ root: '', current: file })),
  );
  console.log(`built ${file} from ${alias}`);
}

const platform = readBundle('platform-public');
const site = readBundle('site');

// Guides: docs/guides/*.md, plus the reference server's own docs (apps/server/docs/*.md).
const guideSources = [join(docsDir, 'guides'), join(docsDir, '..', 'apps', 'server', 'docs')];
const rank = (name) => {
  const index = guideOrder.indexOf(name);
  return index === -1 ? guideOrder.length : index;
};
const guides = guideSources
  .flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.md') && name !== 'README.md')
      .map((name) => ({ name: basename(name, '.md'), path: join(dir, name) })),
  )
  .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name))
  .map(({ name, path }) => {
    const rendered = renderMarkdown(readFileSync(path, 'utf8'));
    return {
      name,
      file: `guides/${name}.html`,
      title: rendered.title ?? name,
      html: expandBundleBlocks(rendered.html, platform),
      headings: rendered.headings,
    };
  });

const guideList = (root, current) =>
  `<h2>Guides</h2><ul>${guides
    .map(
      ({ file, title }) =>
        `<li><a href="${root}${file}"${file === current ? ' aria-current="page"' : ''}>${escapeHtml(title)}</a></li>`,
    )
    .join('')}</ul>`;

for (const guide of guides) {
  const toc = guide.headings.length
    ? `<h2>On this page</h2><ul>${guide.headings.map(({ id, text }) => `<li><a href="#${id}">${escapeHtml(text)}</a></li>`).join('')}</ul>`
    : '';
  writeFileSync(
    join(dist, guide.file),
    page({
      title: `${guide.title} — platform-api docs`,
      root: '../',
      current: guide.file,
      aside: `<nav aria-label="Guides">${guideList('../', guide.file)}${toc}</nav>`,
      body: guide.html,
    }),
  );
}

// The changelog: docs/changelog.md when someone wrote one, else the spec's generated API changelog.
const changelogSources = [join(docsDir, 'changelog.md')];
try {
  changelogSources.push(require.resolve('@platform-api/spec/api-changelog.md'));
} catch {
  // not generated yet
}
const changelogSource = changelogSources.find((path) => existsSync(path));
const changelog = changelogSource
  ? renderMarkdown(readFileSync(changelogSource, 'utf8')).html
  : '<h1 id="changelog">Changelog</h1>\n<p>No released changes yet.</p>';
writeFileSync(
  join(dist, 'changelog.html'),
  page({ title: 'Changelog — platform-api docs', root: '', current: 'changelog.html', body: changelog }),
);

// The landing page.
const countOperations = (bundle) =>
  Object.values(bundle.paths ?? {}).reduce(
    (sum, item) => sum + Object.keys(item).filter((key) => HTTP_METHODS.includes(key)).length,
    0,
  );
const quickStart = renderMarkdown(readFileSync(join(siteDir, 'quick-start.md'), 'utf8')).html;
const card = (heading, text, links = '', meta = '') =>
  `<li class="card"><h3>${heading}</h3><p>${text}</p>${meta ? `<p class="meta">${meta}</p>` : ''}${links ? `<p>${links}</p>` : ''}</li>`;
const inline = (markdown) => renderMarkdown(markdown).html.replace(/^<p>|<\/p>\n?$/g, '');
writeFileSync(
  join(dist, 'index.html'),
  page({
    title: 'platform-api docs',
    root: '',
    current: 'index.html',
    body: `<section class="hero">
<h1 id="platform-api-docs">platform-api docs</h1>
<p class="lead">Two HTTP APIs, described in OpenAPI 3.1: the analytics <strong>platform API</strong> and the
WordPress REST API of the developer <strong>content site</strong>. The references below, a typed client, the
mocks and the reference server are all generated from, or checked against, those descriptions.</p>
</section>
<h2 id="the-apis">The APIs</h2>
<ul class="cards">
${card(
  `<a href="platform.html">${escapeHtml(platform.info.title)}</a>`,
  inline(platform.info.summary ?? ''),
  '<a href="platform.html">Reference</a> · <a href="guides/getting-started.html">Getting started</a> · <a href="guides/events.html">Events and webhooks</a>',
  `version ${escapeHtml(platform.info.version)} · ${countOperations(platform)} operations · ${Object.keys(platform.webhooks ?? {}).length} webhooks`,
)}
${card(
  `<a href="site.html">${escapeHtml(site.info.title)}</a>`,
  inline(site.info.summary ?? ''),
  '<a href="site.html">Reference</a>',
  `version ${escapeHtml(site.info.version)} · ${countOperations(site)} operations`,
)}
</ul>
<section class="quick-start">
${quickStart}
</section>
<h2 id="more">More</h2>
<ul class="cards">
${guides.map(({ file, title, headings }) => card(`<a href="${file}">${escapeHtml(title)}</a>`, headings.map(({ text }) => escapeHtml(text)).join(' · '))).join('\n')}
${card('<a href="changelog.html">Changelog</a>', 'What changed in the APIs, release by release.')}
</ul>`,
  }),
);
console.log(`built index.html, changelog.html and ${guides.length} guide(s)`);
