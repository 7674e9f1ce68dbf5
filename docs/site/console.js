// The API console: Swagger UI (swagger-ui-dist, bundled locally) over the same bundle as the reference.
// `?api=platform|site` picks the description, `&server=` the server every call goes to, `&op=` one
// operation (the reference page's panel shows it in a frame, `&embed=1`); without `op`, every operation.
// The description is read from assets/spec-<api>.js (written by the build), never restated here; what
// changes is the console's copy: its one server, and on an OAuth API a second way to authorize, a
// bearer token pasted as is, beside the client-credentials flow.
(() => {
  const params = new URLSearchParams(location.search);
  const api = params.get('api') === 'site' ? 'site' : 'platform';
  if (params.get('embed')) document.documentElement.classList.add('embedded');
  const root = document.currentScript.dataset.root ?? '';
  const defaultServers = document.currentScript.dataset.defaultServers;
  const loaded = document.createElement('script');
  loaded.src = `${root}assets/spec-${api}.js`;
  loaded.addEventListener('load', () => start(window.platformDocsSpecs[api]));
  document.head.append(loaded);

  const expand = (server) =>
    server.url.replace(/\{([^}]+)\}/g, (whole, name) => server.variables?.[name]?.default ?? whole);

  function start(bundle) {
    const spec = structuredClone(bundle);
    // Opened on its own, the console calls the local server the reference pages default to.
    const defaults = JSON.parse(defaultServers ?? '{}');
    const server =
      params.get('server') ||
      defaults[api] ||
      (spec.servers?.[0] ? expand(spec.servers[0]) : location.origin);
    spec.servers = [{ url: server, description: 'The server picked in the reference' }];
    // A path's own parameters given by reference (`/v1/users/{id}`'s `id`) are shown unresolved, as an
    // unnamed "any", when Swagger UI renders the operation expanded at once (`op`): they are given inline.
    const resolve = (value) =>
      typeof value?.$ref === 'string' && value.$ref.startsWith('#/')
        ? value.$ref
            .slice(2)
            .split('/')
            .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
            .reduce((node, part) => node?.[part], spec)
        : value;
    for (const item of Object.values(spec.paths ?? {})) {
      if (Array.isArray(item.parameters))
        item.parameters = item.parameters.map((parameter) => resolve(parameter) ?? parameter);
    }
    const op = params.get('op');
    if (op) {
      for (const [path, item] of Object.entries(spec.paths ?? {})) {
        for (const method of Object.keys(item)) {
          if (item[method]?.operationId !== undefined && item[method].operationId !== op) delete item[method];
        }
        if (!Object.values(item).some((value) => value?.operationId)) delete spec.paths[path];
      }
    }
    // Webhooks are sent, not called: the reference's panel sends them through the mock.
    delete spec.webhooks;
    const used = new Set(
      Object.values(spec.paths ?? {}).flatMap((item) =>
        Object.values(item).flatMap((value) => value?.tags ?? []),
      ),
    );
    spec.tags = (spec.tags ?? []).filter(({ name }) => used.has(name));
    const schemes = spec.components?.securitySchemes ?? {};
    const oauth = Object.keys(schemes).filter((name) => schemes[name].type === 'oauth2');
    if (oauth.length > 0) {
      schemes.pastedToken = {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'An access token you already have (from `/oauth/token`), pasted as is.',
      };
      for (const item of Object.values(spec.paths ?? {})) {
        for (const operation of Object.values(item)) {
          if (!Array.isArray(operation?.security)) continue;
          if (operation.security.some((requirement) => oauth.some((name) => name in requirement)))
            operation.security.push({ pastedToken: [] });
        }
      }
    }
    // Swagger UI's server list has a caption but no label; name it for screen readers.
    const consoleRoot = document.getElementById('console');
    new MutationObserver(() => {
      for (const select of consoleRoot.querySelectorAll('select#servers:not([aria-label])'))
        select.setAttribute('aria-label', 'Server');
    }).observe(consoleRoot, { childList: true, subtree: true });
    window.ui = window.SwaggerUIBundle({
      spec,
      dom_id: '#console',
      deepLinking: false,
      docExpansion: op ? 'full' : 'list',
      tryItOutEnabled: Boolean(op),
      persistAuthorization: true,
      defaultModelsExpandDepth: -1,
      // The badge would ask an outside validator about the description: every page stays offline.
      validatorUrl: null,
      // Requests go where the reader chose; Swagger UI shows the curl of each beside its answer.
      requestSnippetsEnabled: true,
    });
  }
})();
