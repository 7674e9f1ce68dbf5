// The fields a spec marks unique (`x-state: {unique: true | ignore-case}` on a property of a create or
// update body): no two live items of a collection may share their value, so a request that reuses one
// meets a conflict however right it is.
import { isObject, type Located, type SpecValidator } from '@platform-api/validator';

export interface UniqueField {
  /** The top-level property of the body. */
  name: string;
  /** Whether values that differ only in letter case count as the same (`ignore-case`). */
  ignoreCase: boolean;
  schema: Located;
}

/** The unique properties of an object schema (its own and those of its `allOf` branches). */
export function uniqueFields(validator: SpecValidator, schema: Located<unknown>, depth = 0): UniqueField[] {
  if (depth > 4) return [];
  const resolved = validator.resolve(schema as Located);
  const { node } = resolved;
  const fields: UniqueField[] = [];
  const properties = isObject(node.properties) ? node.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    const located = validator.resolve({ node: property, pointer: `${resolved.pointer}/properties/${name}` });
    const state =
      isObject(property) && isObject(property['x-state']) ? property['x-state'] : located.node['x-state'];
    const unique = isObject(state) ? state.unique : undefined;
    if (unique === true || unique === 'ignore-case')
      fields.push({ name, ignoreCase: unique === 'ignore-case', schema: located });
  }
  for (const [index, branch] of (Array.isArray(node.allOf) ? node.allOf : []).entries())
    fields.push(
      ...uniqueFields(validator, { node: branch, pointer: `${resolved.pointer}/allOf/${index}` }, depth + 1),
    );
  return fields;
}

const fieldsCache = new WeakMap<SpecValidator, Map<string, UniqueField[]>>();

function cachedUniqueFields(validator: SpecValidator, schema: Located<unknown>): UniqueField[] {
  let cache = fieldsCache.get(validator);
  if (!cache) {
    cache = new Map();
    fieldsCache.set(validator, cache);
  }
  let fields = cache.get(schema.pointer);
  if (!fields) {
    fields = uniqueFields(validator, schema);
    cache.set(schema.pointer, fields);
  }
  return fields;
}

export interface Freshened {
  value: unknown;
  /**
   * A unique field the body carries with a value not made fresh for this request (the field under test,
   * or one no fresh value fits): a conflict (409) may be the server meeting it again, so it decides nothing.
   */
  stale?: string;
}

/**
 * The body with a fresh value (tagged with `tag`, the session's uniqueTag()) in each unique field it
 * carries, so that no two requests of a run meet each other's conflict. A field is left as it is where
 * `keep` says it is what the request tests, where its value does not fit its own schema (a negative
 * request's broken value), or where no tagged value fits; such a field makes the request `stale`.
 */
export function withFreshUniques(
  validator: SpecValidator,
  schema: Located<unknown>,
  value: unknown,
  tag: string,
  keep: (name: string) => boolean = () => false,
): Freshened {
  if (!isObject(value)) return { value };
  const copy = { ...value };
  let stale: string | undefined;
  for (const field of cachedUniqueFields(validator, schema)) {
    if (!(field.name in copy)) continue;
    const current = copy[field.name];
    const fits = (candidate: unknown) => validator.validateAt(field.schema.pointer, candidate).length === 0;
    // Already tagged for this request (the examples phase tags every free text).
    if (typeof current === 'string' && current.includes(tag) && fits(current)) continue;
    const fresh =
      typeof current === 'string' && !keep(field.name) && fits(current)
        ? freshCandidates(field.schema, current, tag).find(fits)
        : undefined;
    if (fresh === undefined) stale ??= field.name;
    else copy[field.name] = fresh;
  }
  return stale === undefined ? { value: copy } : { value: copy, stale };
}

/** Tagged forms of a string, the likeliest to fit first: an e-mail tagged in its local part, text at its end. */
function freshCandidates(schema: Located, current: string, tag: string): string[] {
  const { node } = schema;
  const maxLength = typeof node.maxLength === 'number' ? node.maxLength : Number.POSITIVE_INFINITY;
  const at = current.lastIndexOf('@');
  if (node.format === 'email' && at > 0) {
    const local = current.slice(0, at);
    const domain = current.slice(at);
    const room = Math.max(1, maxLength - domain.length - tag.length - 1);
    return [`${local}+${tag}${domain}`, `${local.slice(0, room)}+${tag}${domain}`, `${tag}${domain}`];
  }
  const room = Math.max(0, maxLength - tag.length - 1);
  return [`${current} ${tag}`, `${[...current].slice(0, room).join('')} ${tag}`, `${current}${tag}`, tag];
}
