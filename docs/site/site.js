// The guides' and landing page's small helpers (the reference pages have Redoc's own):
// - a dark mode toggle (the mode itself is theme.js's, which runs before this);
// - a Copy button on every code block;
// - search over the guides: MiniSearch (assets/minisearch.js) over the index the build writes
//   (assets/search-index.js: one entry per section of each guide).
(() => {
  const root = document.currentScript?.dataset.root ?? '';
  const theme = globalThis.platformDocsTheme;

  function themeToggle(header) {
    if (!theme) return;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'theme-toggle';
    const label = () => {
      const dark = theme.isDark();
      button.textContent = dark ? 'Light mode' : 'Dark mode';
      button.setAttribute('aria-pressed', String(dark));
    };
    button.addEventListener('click', () => {
      theme.pick(theme.isDark() ? 'light' : 'dark');
      label();
    });
    // A pick made in another page, or the system's change, moves the mode under the button.
    new MutationObserver(label).observe(document.documentElement, { attributeFilter: ['class'] });
    label();
    header.append(button);
  }

  function copyButtons() {
    for (const pre of document.querySelectorAll('main pre')) {
      const code = pre.querySelector('code') ?? pre;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy-button';
      button.textContent = 'Copy';
      button.setAttribute('aria-label', 'Copy the code');
      button.addEventListener('click', async () => {
        try {
          await navigator.clipboard.writeText(code.innerText.replace(/\n$/, ''));
          button.textContent = 'Copied';
        } catch {
          button.textContent = 'Select and copy';
        }
        setTimeout(() => {
          button.textContent = 'Copy';
        }, 2000);
      });
      const wrapper = document.createElement('div');
      wrapper.className = 'code-block';
      pre.replaceWith(wrapper);
      wrapper.append(pre, button);
    }
  }

  function search(header) {
    const entries = globalThis.platformDocsSearch;
    const MiniSearch = globalThis.MiniSearch;
    if (!entries || !MiniSearch) return;
    const index = new MiniSearch({
      fields: ['title', 'heading', 'text'],
      storeFields: ['title', 'heading', 'url'],
      searchOptions: { boost: { heading: 3, title: 2 }, prefix: true, fuzzy: 0.2 },
    });
    index.addAll(entries);
    const box = document.createElement('div');
    box.className = 'site-search';
    box.setAttribute('role', 'search');
    const input = document.createElement('input');
    input.type = 'search';
    input.id = 'site-search';
    input.placeholder = 'Search the guides';
    input.setAttribute('aria-label', 'Search the guides');
    input.setAttribute('aria-controls', 'site-search-results');
    input.autocomplete = 'off';
    const results = document.createElement('ul');
    results.id = 'site-search-results';
    results.className = 'site-search-results';
    results.hidden = true;
    const status = document.createElement('p');
    status.className = 'visually-hidden';
    status.setAttribute('aria-live', 'polite');
    box.append(input, results, status);
    header.querySelector('.site-nav')?.before(box);
    input.addEventListener('input', () => {
      const query = input.value.trim();
      results.replaceChildren();
      if (!query) {
        results.hidden = true;
        status.textContent = '';
        return;
      }
      const found = index.search(query).slice(0, 8);
      for (const { title, heading, url } of found) {
        const link = document.createElement('a');
        link.href = root + url;
        link.textContent = heading && heading !== title ? `${title} › ${heading}` : title;
        const item = document.createElement('li');
        item.append(link);
        results.append(item);
      }
      if (found.length === 0) {
        const item = document.createElement('li');
        item.textContent = 'Nothing found';
        results.append(item);
      }
      results.hidden = false;
      status.textContent = `${found.length} result${found.length === 1 ? '' : 's'}`;
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        input.value = '';
        input.dispatchEvent(new Event('input'));
      }
    });
  }

  document.addEventListener('DOMContentLoaded', () => {
    const header = document.querySelector('.site-header');
    if (header) {
      search(header);
      themeToggle(header);
    }
    copyButtons();
  });
})();
