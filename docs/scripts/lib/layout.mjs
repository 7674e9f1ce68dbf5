// The frame every docs page shares: header with the site navigation, main content, footer. Links are
// relative (`root` is '' or '../'), so the site works from any folder and from file:// too.
import { escapeHtml } from './markdown.mjs';

/** Main navigation: [href relative to the site root, label]. */
export const mainNav = [
  ['platform.html', 'Platform API'],
  ['site.html', 'Site API'],
  ['guides/getting-started.html', 'Getting started'],
  ['guides/events.html', 'Events & webhooks'],
  ['changelog.html', 'Changelog'],
];

/** The header bar; also used by the Redoc pages' template. */
export function siteHeader({ root, current }) {
  const links = mainNav
    .map(([href, label]) => {
      const here = href === current ? ' aria-current="page"' : '';
      return `<a href="${root}${href}"${here}>${escapeHtml(label)}</a>`;
    })
    .join('');
  return `<header class="site-header">
<a class="skip-link" href="#content">Skip to content</a>
<a class="brand" href="${root}index.html"${current === 'index.html' ? ' aria-current="page"' : ''}><span class="brand-mark" aria-hidden="true">{ }</span> platform-api docs</a>
<nav class="site-nav" aria-label="Main">${links}</nav>
</header>`;
}

/**
 * A complete page. `current` is the page's path from the site root (marks the navigation); `aside`
 * is optional HTML for the side column (guides list, "On this page"); `head`, more HTML for the head;
 * `helpers: false` leaves out site.js (a page whose body a library renders); theme.js is on every page.
 */
export function page({ title, root, current, body, aside, footer = '', head = '', helpers = true }) {
  // Dark mode (theme.js, every page: it runs in the head, before the body renders, so a dark page never
  // flashes white); its toggle, copy buttons and the guides' search (site.js).
  const scripts = `<script src="${root}assets/theme.js"></script>
${
  helpers
    ? `<script src="${root}assets/minisearch.js" defer></script>
<script src="${root}assets/search-index.js" defer></script>
<script src="${root}assets/site.js" data-root="${root}"></script>
`
    : ''
}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${root}assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${root}assets/site.css">
${scripts}${head}</head>
<body class="docs-page">
${siteHeader({ root, current })}
<div class="page-body${aside ? ' with-aside' : ''}">
${aside ? `<aside class="page-aside">${aside}</aside>` : ''}
<main id="content" class="content" tabindex="-1">
${body}
</main>
</div>
<footer class="site-footer"><p>Built from the OpenAPI descriptions in <code>spec/</code>. ${footer}</p></footer>
</body>
</html>
`;
}
