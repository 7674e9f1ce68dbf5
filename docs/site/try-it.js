// The reference pages' "Try it" panel, beside Redoc (which stays the renderer). Loaded before Redoc's own
// script, it:
// - prepares the description Redoc renders (`prepareReference`, called by the build's patch just before
//   Redoc hydrates): code samples name the server the reader picked (default the local one), in the
//   order the samples are written (TypeScript first); templated servers show their default address, not
//   `{base_url}` resolved against the docs' own address;
// - adds the panel: the server (the description's servers, or a custom URL), the operation (follows the
//   page's route) and Swagger UI's console for it (console.html, in a frame); on a webhook, a form that
//   sends a test event of that type through the mock's `trigger`, or the command that does it.
// Nothing here restates the description: servers, operations and webhooks are read from it.
(() => {
  const script = document.currentScript;
  const api = script.dataset.api;
  const defaultServer = script.dataset.defaultServer;
  const root = script.dataset.root ?? '';
  const serverKey = `platform-docs.server.${api}`;
  const openKey = `platform-docs.try-it-open.${api}`;
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  let definition;
  let choices = [];

  const read = (storage, key) => {
    try {
      return storage.getItem(key);
    } catch {
      return null;
    }
  };
  const write = (storage, key, value) => {
    try {
      if (value === null) storage.removeItem(key);
      else storage.setItem(key, value);
    } catch {
      // storage disabled: the choice lasts until the page is left
    }
  };

  /** A server's address with its variables' defaults filled in. */
  const expand = (server) =>
    server.url.replace(/\{([^}]+)\}/g, (whole, name) => server.variables?.[name]?.default ?? whole);

  /** The servers to choose from: the description's, expanded, each with its description. */
  const serverChoices = (doc) =>
    (doc.servers ?? []).map((server) => ({ url: expand(server), description: server.description ?? '' }));

  const chosenServer = () => read(localStorage, serverKey) || defaultServer;

  /** Every operation and webhook: what the panel's list offers and the routes map to. */
  function operationsOf(doc) {
    const list = [];
    for (const [kind, items] of [
      ['operation', doc.paths],
      ['webhook', doc.webhooks],
    ]) {
      for (const [path, item] of Object.entries(items ?? {})) {
        for (const method of methods) {
          const operation = item[method];
          if (!operation?.operationId) continue;
          list.push({
            kind,
            path,
            method,
            operationId: operation.operationId,
            summary: operation.summary ?? operation.operationId,
            tag: operation.tags?.[0] ?? '',
          });
        }
      }
    }
    return list;
  }

  /** Called by the page just before Redoc renders `doc`: the samples and servers the reader should see. */
  function prepareReference(doc, options) {
    definition = doc;
    // The panel offers the description's servers, read before Redoc's copy is reordered below.
    choices = serverChoices(doc);
    const base = doc.servers?.[0] ? expand(doc.servers[0]) : undefined;
    const server = chosenServer();
    const labels = new Map();
    for (const item of [...Object.values(doc.paths ?? {}), ...Object.values(doc.webhooks ?? {})]) {
      for (const method of methods) {
        for (const sample of item?.[method]?.['x-codeSamples'] ?? []) {
          if (base && server) sample.source = sample.source.split(base).join(server);
          if (!labels.has(sample.label ?? sample.lang)) labels.set(sample.label ?? sample.lang, sample.lang);
        }
      }
    }
    // Redoc offers the languages it is told, first one first; by default curl leads and hides the others.
    if (labels.size > 0)
      options.codeSamples = { languages: [...labels].map(([label, lang]) => ({ lang, label })) };
    for (const item of doc.servers ?? []) {
      if (item.variables) {
        item.url = expand(item);
        delete item.variables;
      }
    }
    // Redoc selects the first server: the chosen one, added when it is a custom URL.
    if (server && doc.servers) {
      const chosen = doc.servers.find(({ url }) => url === server) ?? {
        url: server,
        description: 'Picked in Try it.',
      };
      doc.servers = [chosen, ...doc.servers.filter((item) => item !== chosen)];
    }
    // Deep links land below the site's header, which stays in view.
    options.scrollYOffset = '.site-header';
  }

  const element = (name, attributes = {}, ...children) => {
    const node = document.createElement(name);
    for (const [key, value] of Object.entries(attributes)) {
      if (value === false || value === undefined) continue;
      if (key === 'text') node.textContent = value;
      else node.setAttribute(key, value === true ? '' : value);
    }
    node.append(...children);
    return node;
  };

  /** The operation a Redoc route names (`#/users/listusers`), if any. */
  function routed(operations) {
    const [, , segment] = location.hash.split('#')[1]?.split('/') ?? [];
    if (!segment) return undefined;
    return operations.find(({ operationId }) => operationId.toLowerCase() === segment.toLowerCase());
  }

  function buildPanel() {
    if (!definition) return;
    const operations = operationsOf(definition);
    const servers = choices;
    const panel = element('aside', { class: 'try-it', 'aria-label': 'Try it' });
    const toggle = element('button', {
      type: 'button',
      class: 'try-it-toggle',
      'aria-expanded': 'false',
      'aria-controls': 'try-it-body',
      text: 'Try it',
    });
    const body = element('div', { id: 'try-it-body', class: 'try-it-body', hidden: true });

    const serverSelect = element('select', { id: 'try-it-server' });
    for (const { url, description } of servers)
      serverSelect.append(element('option', { value: url, text: `${url} — ${description}` }));
    serverSelect.append(element('option', { value: '', text: 'Custom URL…' }));
    const custom = element('input', {
      id: 'try-it-custom',
      type: 'url',
      placeholder: 'https://api.example.org',
      'aria-label': 'Custom server URL',
    });
    const apply = element('button', { type: 'button', text: 'Use this server' });
    const customRow = element('div', { class: 'try-it-row try-it-custom' }, custom, apply);
    const current = chosenServer();
    if (servers.some(({ url }) => url === current)) serverSelect.value = current;
    else {
      serverSelect.value = '';
      custom.value = current;
    }
    customRow.hidden = serverSelect.value !== '';

    const operationSelect = element('select', { id: 'try-it-operation' });
    let group;
    for (const [index, operation] of operations.entries()) {
      const label = operation.kind === 'webhook' ? `${operation.tag} (webhooks)` : operation.tag;
      if (group?.label !== label) {
        group = element('optgroup', { label });
        operationSelect.append(group);
      }
      const name =
        operation.kind === 'webhook'
          ? `${operation.path}: ${operation.summary}`
          : `${operation.method.toUpperCase()} ${operation.path} — ${operation.summary}`;
      group.append(element('option', { value: String(index), text: name }));
    }

    const newTab = element('a', {
      class: 'try-it-new-tab',
      target: '_blank',
      text: 'Open the console in a tab',
    });
    const frame = element('iframe', { title: 'API console', class: 'try-it-frame' });
    const consoleView = element('div', { class: 'try-it-console' }, frame);
    const webhookView = element('div', { class: 'try-it-webhook', hidden: true });

    body.append(
      element(
        'div',
        { class: 'try-it-row' },
        element('label', { for: 'try-it-server', text: 'Server' }),
        serverSelect,
      ),
      customRow,
      element(
        'div',
        { class: 'try-it-row' },
        element('label', { for: 'try-it-operation', text: 'Operation' }),
        operationSelect,
      ),
      element('p', { class: 'try-it-note' }, newTab),
      consoleView,
      webhookView,
    );
    panel.append(toggle, body);
    document.body.append(panel);

    const consoleUrl = (operation) =>
      `${root}console.html?${new URLSearchParams({ api, server: chosenServer(), ...(operation ? { op: operation.operationId } : {}) })}`;

    const show = () => {
      const operation = operations[Number(operationSelect.value)];
      newTab.href = consoleUrl(operation?.kind === 'operation' ? operation : undefined);
      if (body.hidden) return;
      if (operation?.kind === 'webhook') {
        consoleView.hidden = true;
        webhookView.hidden = false;
        showWebhook(webhookView, operation);
        return;
      }
      webhookView.hidden = true;
      consoleView.hidden = false;
      const src = `${consoleUrl(operation)}&embed=1`;
      if (frame.getAttribute('src') !== src) frame.setAttribute('src', src);
    };
    const follow = () => {
      const operation = routed(operations);
      if (operation) operationSelect.value = String(operations.indexOf(operation));
      show();
    };
    const setOpen = (open) => {
      body.hidden = !open;
      toggle.setAttribute('aria-expanded', String(open));
      document.documentElement.classList.toggle('try-it-open', open);
      write(sessionStorage, openKey, open ? '1' : null);
      show();
    };
    // The samples were filled in with the chosen server as the page loaded: a new choice reloads it.
    const choose = (url) => {
      write(localStorage, serverKey, url === defaultServer ? null : url);
      location.reload();
    };

    toggle.addEventListener('click', () => setOpen(body.hidden));
    serverSelect.addEventListener('change', () => {
      customRow.hidden = serverSelect.value !== '';
      if (serverSelect.value) choose(serverSelect.value);
      else custom.focus();
    });
    apply.addEventListener('click', () => {
      if (custom.checkValidity() && custom.value) choose(custom.value.replace(/\/+$/, ''));
      else custom.reportValidity();
    });
    operationSelect.addEventListener('change', show);
    window.addEventListener('hashchange', follow);
    follow();
    if (read(sessionStorage, openKey)) setOpen(true);
  }

  /** A webhook: send a test event of its type to a URL the reader gives, or show the command that does. */
  function showWebhook(view, operation) {
    if (view.dataset.eventType === operation.path) return;
    view.dataset.eventType = operation.path;
    view.replaceChildren();
    const to = element('input', {
      id: 'try-it-receiver',
      type: 'url',
      required: true,
      placeholder: 'https://localhost:8443/hooks',
    });
    const secret = element('input', { id: 'try-it-secret', placeholder: 'whsec_… (default: a new one)' });
    const send = element('button', { type: 'submit', text: `Send a test ${operation.path} event` });
    const command = element('code');
    const output = element('pre', { class: 'try-it-output', tabindex: '0', 'aria-live': 'polite' });
    output.hidden = true;
    const form = element(
      'form',
      {},
      element('p', {
        class: 'try-it-note',
        text: "The mock delivers the description's example of this event, signed and with a callback, as the service does.",
      }),
      element(
        'div',
        { class: 'try-it-row' },
        element('label', { for: 'try-it-receiver', text: 'Receiver URL' }),
        to,
      ),
      element(
        'div',
        { class: 'try-it-row' },
        element('label', { for: 'try-it-secret', text: 'Signing secret' }),
        secret,
      ),
      element('div', { class: 'try-it-row' }, send),
      element('p', { class: 'try-it-note', text: 'Or from the repository root:' }),
      element('pre', { tabindex: '0' }, command),
      output,
    );
    const quote = (text) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
    const update = () => {
      command.textContent = `node apps/mock/dist/cli.js trigger ${operation.path} --to ${quote(to.value || 'https://localhost:8443/hooks')}${secret.value ? ` --secret ${quote(secret.value)}` : ''}`;
    };
    const copy = element('button', { type: 'button', text: 'Copy the command' });
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(command.textContent);
        copy.textContent = 'Copied';
      } catch {
        copy.textContent = 'Select it and copy';
      }
      setTimeout(() => {
        copy.textContent = 'Copy the command';
      }, 2000);
    });
    form.insertBefore(element('div', { class: 'try-it-row' }, copy), output);
    to.addEventListener('input', update);
    secret.addEventListener('input', update);
    update();
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      output.hidden = false;
      output.textContent = 'Sending…';
      try {
        const response = await fetch(`${root}try/trigger`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            eventType: operation.path,
            to: to.value,
            ...(secret.value ? { secret: secret.value } : {}),
          }),
        });
        if (response.status === 404) {
          output.textContent =
            'This docs server cannot send events (npm start in the docs serves them): run the command above.';
          return;
        }
        const result = await response.json();
        output.textContent = result.error
          ? `Not sent: ${result.error}`
          : [
              `${result.ok ? 'Delivered' : 'Not delivered'}: the receiver answered ${result.delivery.status ?? `nothing (${result.delivery.error})`}`,
              `webhook-id ${result.webhookId}, signing secret ${result.secret}`,
              ...(result.lines ?? []),
            ].join('\n');
      } catch (error) {
        output.textContent = `Not sent: ${error.message}`;
      }
    });
    view.append(form);
  }

  window.platformDocs = { prepareReference };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', buildPanel);
  else buildPanel();
})();
