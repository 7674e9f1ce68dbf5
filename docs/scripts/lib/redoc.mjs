// Post-processing of a page made by `redocly build-docs --inlineBundle` (pinned @redocly/cli 2.77.0):
// - removes the "API docs by Redocly" badge. Redoc has no option for it, and it loads its logo from
//   cdn.redoc.ly (blank offline, and a request off the machine) and links to redocly.com. It is taken
//   out of both the server-rendered markup and the inlined script, so hydration still matches;
// - makes the server-rendered menu links hash routes (`#/users`), as the script renders them: the
//   prerender writes `/users`, which names no file and answers 404 when opened in a new tab;
// - adds the site's header, stylesheet and icon, and a target for the skip link.
// Every patch must apply: a Redoc upgrade that changes the markup fails the build instead of quietly
// putting the badge back.

/** Index just past the parenthesis that closes the one at `open`, skipping template literals. */
function closingParen(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (char === '`') {
      i = text.indexOf('`', i + 1);
      if (i === -1) break;
    } else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i + 1;
  }
  throw new Error('unbalanced parentheses in the Redoc script');
}

function removeBadge(html) {
  const markup =
    /<span class="[^"]*"><a target="_blank" rel="noopener noreferrer" href="https:\/\/redocly\.com\/redoc\/"><p>API docs by<\/p><\/a><\/span>/g;
  const markupCount = html.match(markup)?.length ?? 0;
  let patched = html.replace(markup, '');
  // The badge element in the script: (0,X.jsx)(Span,{$collapsedSidebar:n,children:(0,X.jsx)(`a`,{…href:`https://redocly.com/redoc/`…})})
  const script =
    /\(0,(\w+)\.jsx\)\(\w+,\{\$collapsedSidebar:\w+,children:\(0,\1\.jsx\)\(`a`,\{target:`_blank`,rel:`noopener noreferrer`,href:`https:\/\/redocly\.com\/redoc\/`/g;
  let scriptCount = 0;
  for (let match = script.exec(patched); match; match = script.exec(patched)) {
    const callOpen = match.index + `(0,${match[1]}.jsx)`.length;
    patched = `${patched.slice(0, match.index)}null${patched.slice(closingParen(patched, callOpen))}`;
    scriptCount++;
  }
  if (markupCount !== 1 || scriptCount !== 1) {
    throw new Error(
      `Redoc's badge: expected it once in the markup and once in the script, found ${markupCount} and ${scriptCount} (has @redocly/cli changed?)`,
    );
  }
  // The logo component is no longer used; its CDN addresses go too, so nothing can ever load them.
  patched = patched.replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, 'data:,');
  for (const leftover of ['redocly.com/redoc/', 'cdn.redoc.ly']) {
    if (patched.includes(leftover)) throw new Error(`Redoc page still refers to ${leftover}`);
  }
  return patched;
}

/** Menu links of the prerendered markup (react-router `Link`s, `data-discover`) as hash routes. */
function hashRoutes(html) {
  let count = 0;
  const patched = html.replace(/ href="(\/[^"]*)" data-discover="true"/g, (_, route) => {
    count++;
    return ` href="#${route}" data-discover="true"`;
  });
  if (count === 0) throw new Error('Redoc page: no prerendered menu links found (has @redocly/cli changed?)');
  return patched;
}

/**
 * Lets the page's script (`head`) prepare the description and options just before Redoc renders them:
 * the try-it panel's `prepareReference` (docs/site/try-it.js). The prerendered markup holds no code
 * sample and no server, so what it changes there cannot disagree with the hydrated markup.
 */
function prepareBeforeHydrate(html) {
  const call = "hydrate(__redoc_definition, __redoc_options, document.getElementById('redoc'));";
  const count = html.split(call).length - 1;
  if (count !== 1)
    throw new Error(`Redoc page: expected one hydrate call, found ${count} (has @redocly/cli changed?)`);
  return html.replace(
    call,
    `window.platformDocs?.prepareReference(__redoc_definition, __redoc_options);\n      ${call}`,
  );
}

/**
 * The Redoc page with the badge removed, the site's header, stylesheet and icon added, and `scripts`
 * (HTML for the head, run before Redoc's script) given the description before Redoc renders it.
 */
export function patchRedocPage(html, header, scripts = '') {
  const head = `<link rel="icon" href="assets/favicon.svg" type="image/svg+xml">\n<link rel="stylesheet" href="assets/site.css">\n${scripts}</head>`;
  if (!html.includes('</head>') || !/<body>/.test(html))
    throw new Error('unexpected Redoc page: no </head> or <body>');
  // The skip link jumps past the header to Redoc (which has its own <main>).
  const patched = prepareBeforeHydrate(hashRoutes(removeBadge(html)))
    .replace('</head>', head)
    .replace('<body>', `<body>\n${header}\n<div id="content" tabindex="-1">`);
  // The page's own </body> is the last one (the inlined script has some in its strings).
  const end = patched.lastIndexOf('</body>');
  return `${patched.slice(0, end)}</div>\n${patched.slice(end)}`;
}
