// Redocly decorator plugin for the platform-portable bundle: platform-public without the constructs that
// code generators cannot read although they are the precise description (see
// docs/guides/generators.md). Everything else in the source is already spelled portably; this removes
// only what has no portable spelling:
// - `webhooks`: openapi-generator's `python` emits their operations untyped (`webhook_id: ,`, a syntax
//   error), oapi-codegen leaves their parameter types undefined. The event schemas stay in `components`,
//   so every client still gets their models.
// - a query parameter that the operation's form body also carries (POST /oauth/token's `grant_type` and
//   `scope`): generators make one identifier per name (typescript-fetch declares the enum twice, python
//   names the second `grant_type2`). The form field stays: it is how RFC 6749 clients send the grant.
// - `const`/`enum` on a boolean (`deleted: {type: boolean, const: true}` of the Deleted* forms): python's
//   generated validator compares the value with the string 'true' and refuses every deleted resource.
//   The forms stay told apart: `deleted` is required in them and absent from the live resources.
// - the `title` of an inline oneOf/anyOf branch (below): openapi-python-client names a model by it alone.
// And it spells the `false` schema `not: {}` (the source keeps `false`: openapi-typescript makes it `never`).
// Loaded by redocly.yaml (`plugins`; `portable/generator-friendly: on` for platform-portable only).

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value a local `$ref` (`#/components/...`) points to in the bundled document. */
function resolveLocal(root, node) {
  if (!node || typeof node.$ref !== 'string' || !node.$ref.startsWith('#/')) return node;
  return node.$ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((value, key) => value?.[key], root);
}

/** The property names of the operation's form body, when it has one. */
function formFields(root, operation) {
  const body = resolveLocal(root, operation.requestBody);
  const form = body?.content?.['application/x-www-form-urlencoded'];
  const schema = resolveLocal(root, form?.schema);
  return new Set(Object.keys(schema?.properties ?? {}));
}

/** Every local `$ref` in the value. */
function localRefs(value, found = new Set()) {
  if (Array.isArray(value)) for (const item of value) localRefs(item, found);
  else if (value && typeof value === 'object') {
    if (typeof value.$ref === 'string') found.add(value.$ref);
    for (const item of Object.values(value)) localRefs(item, found);
  }
  return found;
}

/**
 * Removes the parameters, examples, responses and headers nothing refers to any more (those of the removed
 * webhooks and query declarations), until none is left. Schemas stay: they are the models of the events.
 */
function removeUnusedComponents(root) {
  const kinds = ['parameters', 'examples', 'responses', 'headers'];
  for (let removed = true; removed; ) {
    removed = false;
    const used = localRefs(root);
    for (const kind of kinds) {
      for (const name of Object.keys(root.components?.[kind] ?? {})) {
        if (used.has(`#/components/${kind}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`)) continue;
        delete root.components[kind][name];
        removed = true;
      }
    }
  }
}

function generatorFriendly() {
  return {
    Schema: {
      leave(schema) {
        // Inline oneOf/anyOf branches lose their title: openapi-python-client makes a model of each titled
        // branch, named by the title alone, so IntegrationCreate's and Integration's `CHANNEL_LIST`
        // branches collide and both operations are dropped. Untitled, they are named by their parent.
        for (const keyword of ['oneOf', 'anyOf']) {
          for (const branch of Array.isArray(schema[keyword]) ? schema[keyword] : []) {
            if (branch && typeof branch === 'object' && branch.$ref === undefined) delete branch.title;
          }
        }
        // The `false` schema (a property that must be absent) as `not: {}`, its portable spelling:
        // oapi-codegen and openapi-python-client refuse to load a boolean schema.
        for (const [name, property] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
          if (property === false) schema.properties[name] = { not: {} };
        }
        if (schema.type !== 'boolean') return;
        delete schema.const;
        delete schema.enum;
      },
    },
    Root: {
      // On leave: the bundler has by then moved every referenced file into `components`, so the event
      // schemas stay when `webhooks` goes, and every `$ref` left is local.
      leave(root) {
        delete root.webhooks;
        for (const pathItem of Object.values(root.paths ?? {})) {
          for (const operation of Object.values(pathItem)) {
            if (!operation || typeof operation !== 'object' || !Array.isArray(operation.parameters)) continue;
            const fields = formFields(root, operation);
            if (fields.size === 0) continue;
            const kept = operation.parameters.filter((reference) => {
              const parameter = resolveLocal(root, reference);
              return !(parameter?.in === 'query' && fields.has(parameter.name));
            });
            if (kept.length > 0) operation.parameters = kept;
            else delete operation.parameters;
          }
        }
        removeUnusedComponents(root);
      },
    },
  };
}

export default function portablePlugin() {
  return {
    id: 'portable',
    decorators: {
      oas3: { 'generator-friendly': generatorFriendly },
    },
  };
}
