// Dark mode for every page of the site but the Redoc references (which have Redoc's own): the reader's
// pick when there is one (`redoc.colorMode` in localStorage, shared with Redoc's toggle, so every page
// looks the same), else the system's (`prefers-color-scheme`). It runs in the head, before the body
// renders, so a dark page never flashes white; and it follows, while the page is open, a pick made in
// another page or in the page that frames it (the reference's Try it panel frames the console), and a
// change of the system's setting. html.dark is the site's dark style, html.dark-mode Swagger UI's (the
// console).
(() => {
  const key = 'redoc.colorMode';
  const system = matchMedia('(prefers-color-scheme: dark)');
  const stored = () => {
    try {
      const mode = localStorage.getItem(key);
      return mode === 'dark' || mode === 'light' ? mode : null;
    } catch {
      return null;
    }
  };
  const apply = (mode) => {
    const classes = document.documentElement.classList;
    classes.toggle('dark', mode === 'dark');
    classes.toggle('dark-mode', mode === 'dark');
    classes.toggle('light', mode !== 'dark');
  };
  const follow = () => apply(stored() ?? (system.matches ? 'dark' : 'light'));
  follow();
  addEventListener('storage', (event) => {
    if (event.key === key || event.key === null) follow();
  });
  system.addEventListener('change', follow);
  globalThis.platformDocsTheme = {
    isDark: () => document.documentElement.classList.contains('dark'),
    /** The reader's pick: kept for every page of the site (for this page only when storage is off). */
    pick(mode) {
      apply(mode);
      try {
        localStorage.setItem(key, mode);
      } catch {
        // storage disabled: the pick lasts for this page
      }
    },
  };
})();
