// platform-portable (spec/scripts/portable.js) is platform-public without the constructs code generators
// cannot read (docs/guides/generators.md): this checks each promise of that page on the bundle as built,
// and that nothing else went missing.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
type Json = Record<string, unknown>;
const load = (name: string) =>
  JSON.parse(readFileSync(join(dist, `${name}.openapi.json`), 'utf8')) as Json & {
    paths: Record<string, Record<string, Json>>;
    components: Record<string, Record<string, unknown>>;
  };
const portable = load('platform-portable');
const original = load('platform-public');

/** Every node of a document with its JSON pointer. */
function* walk(value: unknown, pointer = ''): Generator<[string, unknown]> {
  yield [pointer, value];
  if (Array.isArray(value))
    for (const [index, item] of value.entries()) yield* walk(item, `${pointer}/${index}`);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) yield* walk(item, `${pointer}/${key}`);
}

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

describe('the platform-portable bundle', () => {
  it('has no webhooks, and keeps the event schemas as models', () => {
    expect(portable.webhooks).toBeUndefined();
    expect(Object.keys(original.webhooks as Json).length).toBeGreaterThan(0);
    expect(Object.keys(portable.components.schemas ?? {})).toEqual(
      Object.keys(original.components.schemas ?? {}),
    );
  });

  it('keeps every path operation of platform-public', () => {
    const operations = (document: typeof portable) =>
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, operation]) => isObject(operation) && 'operationId' in operation)
          .map(([method]) => `${method} ${path}`),
      );
    expect(operations(portable)).toEqual(operations(original));
  });

  it('has no boolean subschema, no const or enum on a boolean, no title on an inline oneOf/anyOf branch', () => {
    const found: string[] = [];
    for (const [pointer, node] of walk(portable)) {
      if (/\/properties\/[^/]+$/.test(pointer) && typeof node === 'boolean')
        found.push(`${pointer}: ${node}`);
      if (!isObject(node)) continue;
      if (node.type === 'boolean' && ('const' in node || 'enum' in node))
        found.push(`${pointer}: boolean const/enum`);
      if (/\/(oneOf|anyOf)\/\d+$/.test(pointer) && !('$ref' in node) && 'title' in node)
        found.push(`${pointer}: title ${String(node.title)}`);
    }
    expect(found).toEqual([]);
  });

  it('declares each request parameter once: no query parameter beside a form field of its name', () => {
    const twice: string[] = [];
    for (const [path, item] of Object.entries(portable.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const parameters = (operation.parameters ?? []) as Json[];
        const body = operation.requestBody as Json | undefined;
        const form = (body?.content as Json | undefined)?.['application/x-www-form-urlencoded'] as
          | Json
          | undefined;
        let schema = form?.schema as Json | undefined;
        if (typeof schema?.$ref === 'string')
          schema = portable.components.schemas?.[schema.$ref.split('/').at(-1) ?? ''] as Json | undefined;
        const fields = Object.keys((schema?.properties as Json | undefined) ?? {});
        for (const parameter of parameters) {
          const resolved =
            typeof parameter.$ref === 'string'
              ? ((portable.components.parameters?.[parameter.$ref.split('/').at(-1) ?? ''] ?? {}) as Json)
              : parameter;
          if (resolved.in === 'query' && fields.includes(String(resolved.name)))
            twice.push(`${method.toUpperCase()} ${path}: ${String(resolved.name)}`);
        }
      }
    }
    expect(twice).toEqual([]);
  });
});
