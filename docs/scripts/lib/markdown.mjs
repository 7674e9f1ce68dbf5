// Markdown → HTML for the guides, the quick start and the changelog: marked (GitHub-flavoured), code
// highlighted at build time by highlight.js (the pages load no script for it), headings with ids, and
// links between guides rewritten from `.md` to `.html`.
import hljs from 'highlight.js';
import { Marked } from 'marked';
import { markedHighlight } from 'marked-highlight';

/** GitHub's heading slugs: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2, … */
export function createSlugger() {
  const seen = new Map();
  return (text) => {
    const base = text
      .toLowerCase()
      .trim()
      .replace(/<[^>]*>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return count === 0 ? base : `${base}-${count}`;
  };
}

const escapeHtml = (text) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Plain text of inline tokens (for slugs and the table of contents). */
const plain = (tokens) =>
  tokens.map((token) => (token.tokens ? plain(token.tokens) : (token.text ?? token.raw))).join('');

/**
 * Renders one Markdown document. Returns the HTML, the first h1's text and the h2 headings
 * (`{id, text}`) for an "On this page" list.
 */
export function renderMarkdown(markdown) {
  const slug = createSlugger();
  const headings = [];
  let title;
  const marked = new Marked(
    markedHighlight({
      emptyLangClass: 'hljs',
      langPrefix: 'hljs language-',
      highlight(code, lang) {
        const language = hljs.getLanguage(lang) ? lang : 'plaintext';
        return hljs.highlight(code, { language }).value;
      },
    }),
    {
      gfm: true,
      renderer: {
        heading({ tokens, depth }) {
          const text = plain(tokens);
          const id = slug(text);
          if (depth === 1 && title === undefined) title = text;
          if (depth === 2) headings.push({ id, text });
          return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
        },
        link({ href, title: linkTitle, tokens }) {
          // Guides link each other as `./other.md#part` (so they work on GitHub too).
          const target = href.replace(
            /^(?:\.\/)?([\w-]+)\.md(#[\w-]*)?$/,
            (_, name, hash) => `${name}.html${hash ?? ''}`,
          );
          const titleAttribute = linkTitle ? ` title="${escapeHtml(linkTitle)}"` : '';
          return `<a href="${escapeHtml(target)}"${titleAttribute}>${this.parser.parseInline(tokens)}</a>`;
        },
        table(token) {
          // A wide table scrolls inside its own region; keyboard users reach it with Tab.
          const html = this.constructor.prototype.table.call(this, token);
          return `<div class="table-scroll" role="region" aria-label="Table" tabindex="0">${html}</div>\n`;
        },
      },
    },
  );
  const html = marked
    .parse(markdown)
    // A code block that overflows scrolls; tabindex lets a keyboard scroll it (axe: scrollable-region-focusable).
    .replace(/<pre>/g, '<pre tabindex="0">');
  return { html, title, headings };
}

/** Highlights one code snippet as a complete `<pre>` block. */
export function codeBlock(code, language) {
  const { value } = hljs.highlight(code, { language });
  return `<pre tabindex="0"><code class="hljs language-${language}">${value}</code></pre>`;
}

export { escapeHtml };
