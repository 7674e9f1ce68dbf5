// Builds the static docs site into dist/: one Redoc page per API (scripts inlined, so it renders
// offline), the guides rendered from guides/*.md, and an index page linking everything.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { marked } from 'marked';

const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(docsDir, 'dist');
const config = join(docsDir, '..', 'redocly.yaml');
const redocly = join(docsDir, 'node_modules', '.bin', 'redocly');

/** The reference pages: the public platform API (x-internal removed) and the content site API. */
export const references = [
  { alias: 'platform-public@v1', file: 'platform.html', title: 'Platform API reference' },
  { alias: 'site@v2', file: 'site.html', title: 'Content site API reference' },
];

mkdirSync(join(dist, 'guides'), { recursive: true });
for (const { alias, file, title } of references) {
  execFileSync(
    redocly,
    [
      'build-docs',
      alias,
      '--config',
      config,
      '--inlineBundle',
      '--title',
      title,
      '--output',
      join(dist, file),
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      cwd: docsDir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
    },
  );
  console.log(`built ${file} from ${alias}`);
}

const page = (title, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>body{font:16px/1.6 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{background:#f4f4f4;border-radius:4px}pre{padding:1rem;overflow:auto}code{padding:0 .2rem}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem}a{color:#0b57d0}</style>
</head><body>${body}</body></html>
`;

// Guides: docs/guides/*.md, plus the reference server's own docs (apps/server/docs/*.md).
const guideSources = [join(docsDir, 'guides'), join(docsDir, '..', 'apps', 'server', 'docs')];
const guides = guideSources
  .flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(dir, name)),
  )
  .sort((a, b) => basename(a).localeCompare(basename(b)))
  .map((path) => {
    const name = basename(path);
    const markdown = readFileSync(path, 'utf8');
    const title = /^#\s+(.+)$/m.exec(markdown)?.[1] ?? basename(name, '.md');
    const file = `guides/${basename(name, '.md')}.html`;
    const html = marked.parse(markdown.replace(/\]\(\.\/([\w-]+)\.md\)/g, ']($1.html)'));
    writeFileSync(join(dist, file), page(title, `<p><a href="../index.html">← Docs home</a></p>${html}`));
    return { file, title };
  });

const list = (items) => items.map(({ file, title }) => `<li><a href="${file}">${title}</a></li>`).join('\n');
writeFileSync(
  join(dist, 'index.html'),
  page(
    'platform-api docs',
    `<h1>platform-api docs</h1>
<p>Reference documentation generated from the OpenAPI descriptions in <code>spec/</code>, and guides.</p>
<h2>API reference</h2><ul>${list(references)}</ul>
<h2>Guides</h2><ul>${list(guides)}</ul>`,
  ),
);
console.log(`built index.html and ${guides.length} guide(s)`);
