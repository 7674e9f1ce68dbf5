// What the front reads of a query string before Prism sees it (front.ts). Prism reads a `style: form`
// parameter by its schema's top-level `type` alone, so it misreads three things clients send:
// - a parameter whose schema is a `oneOf`/`anyOf` (the site's term filters: a list of ids, or an object):
//   `categories=1,2` is one string to it, which matches no branch (a 400 for a valid request);
// - PHP's bracket forms, which WordPress (PHP) reads for every parameter and its clients send (wpapi:
//   `categories[]=1&categories[]=2`, `categories[terms][]=1&categories[include_children]=true`): an
//   unknown name to Prism, so never checked;
// - an empty value of an integer, number or boolean parameter (`?limit=`), and a string its `pattern`
//   refuses (`?after=` on the site): accepted, where the reference server and WordPress answer 400.
// The reader checks those against the parameter's own schema in the bundle, forwards the rest of the query
// as Prism reads it (a bracket list of a plain array parameter becomes `name=a,b`; a parameter it has
// checked is left out), and says when the request must get the operation's documented 400.
import { isObject, type JsonObject, joinPointer, type SpecValidator } from '@platform-api/validator';

export interface QueryVerdict {
  /** The query string to forward (without `?`). */
  search: string;
  /** A parameter that breaks its schema, and how: the request gets the operation's documented 400. */
  refused?: { name: string; message: string };
}

export type QueryReader = (method: string, pathname: string, search: string) => QueryVerdict;

/** A PHP query key: `categories`, `categories[]`, `categories[terms][]`. */
const PHP_KEY = /^([^[\]]+)((?:\[[^\]]*\])+)$/;

export function queryReader(
  validator: SpecValidator,
  findOperation: SpecValidator['findOperation'] = (method, path) => validator.findOperation(method, path),
): QueryReader {
  const resolve = (node: unknown, pointer: string): JsonObject =>
    validator.resolve<JsonObject>({ node, pointer }).node;
  return (method, pathname, search) => {
    if (search === '') return { search };
    const operation = findOperation(method, pathname);
    if (!operation) return { search };
    const pairs = search
      .split('&')
      .filter((part) => part !== '')
      .map((part) => {
        const at = part.indexOf('=');
        const raw = at < 0 ? part : part.slice(0, at);
        return { raw: part, key: decode(raw), value: at < 0 ? '' : decode(part.slice(at + 1)) };
      });
    let refused: QueryVerdict['refused'];
    const refuse = (name: string, problems: string[]) => {
      // The validator's words (`body must be >= 1 {"limit":1}`), about the parameter.
      const problem = (problems[0] ?? 'is not valid').replace(/^body /, '').replace(/ \{.*\}$/, '');
      refused ??= { name, message: `${name} ${problem}` };
    };
    const dropped = new Set<number>();
    const added: string[] = [];
    for (const { node: parameter, pointer } of operation.parameters) {
      if (parameter.in !== 'query' || parameter.schema === undefined) continue;
      const schemaPointer = joinPointer(pointer, 'schema');
      const schema = resolve(parameter.schema, schemaPointer);
      const plain: number[] = [];
      const bracketed: number[] = [];
      pairs.forEach((pair, index) => {
        if (pair.key === parameter.name) plain.push(index);
        else if (PHP_KEY.exec(pair.key)?.[1] === parameter.name) bracketed.push(index);
      });
      if (plain.length === 0 && bracketed.length === 0) continue;
      const prismReadsIt = schema.oneOf === undefined && schema.anyOf === undefined;
      const type = typeOf(schema, schemaPointer, resolve);
      if (prismReadsIt && bracketed.length === 0) {
        // Prism checks it, but lets an empty number or boolean through, and reads no string's `pattern`.
        const last = pairs[plain.at(-1) as number]?.value ?? '';
        if (['integer', 'number', 'boolean'].includes(String(type)) && last === '')
          refuse(parameter.name, [`must be of type ${String(type)}`]);
        if (type === 'string') {
          const problems = validator.validateAt(schemaPointer, last);
          if (problems.length > 0) refuse(parameter.name, problems);
        }
        continue;
      }
      // PHP: a bracketed key builds an array or object (and wins over a plain one); else the last value.
      const value =
        bracketed.length > 0
          ? phpValue(bracketed.map((index) => pairs[index] as { key: string; value: string }))
          : pairs[plain.at(-1) as number]?.value;
      if (prismReadsIt && schema.type === 'array' && Array.isArray(value)) {
        for (const index of [...plain, ...bracketed]) dropped.add(index);
        added.push(
          `${encodeURIComponent(parameter.name)}=${value.map((item) => encodeURIComponent(String(item))).join(',')}`,
        );
        continue;
      }
      for (const index of [...plain, ...bracketed]) dropped.add(index);
      const coerced = coerce(value, schema, schemaPointer, resolve);
      const problems = validator.validateAt(schemaPointer, coerced);
      if (problems.length > 0) refuse(parameter.name, problems);
    }
    const verdict: QueryVerdict = { search };
    if (dropped.size > 0) {
      const kept = pairs.filter((_, index) => !dropped.has(index)).map((pair) => pair.raw);
      verdict.search = [...kept, ...added].join('&');
    }
    if (refused) verdict.refused = refused;
    return verdict;
  };
}

/** A schema's `type`, or the one its `allOf` states (`allOf: [$ref], default: 10`). */
function typeOf(
  schema: JsonObject,
  pointer: string,
  resolve: (node: unknown, pointer: string) => JsonObject,
): unknown {
  if (schema.type !== undefined || !Array.isArray(schema.allOf)) return schema.type;
  for (const [index, node] of schema.allOf.entries()) {
    const branchPointer = joinPointer(pointer, 'allOf', String(index));
    const type = typeOf(resolve(node, branchPointer), branchPointer, resolve);
    if (type !== undefined) return type;
  }
  return undefined;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The value PHP builds from `name[]=1&name[]=2` (a list) or `name[terms][]=1&name[flag]=true` (a map). */
function phpValue(pairs: Array<{ key: string; value: string }>): unknown {
  let root: unknown;
  for (const { key, value } of pairs) {
    const path = [...(PHP_KEY.exec(key)?.[2] ?? '').matchAll(/\[([^\]]*)\]/g)].map((match) => match[1] ?? '');
    const holder: { root: unknown } = { root };
    let parent: Record<string, unknown> | unknown[] = holder as unknown as Record<string, unknown>;
    let slot: string | number = 'root';
    for (const segment of path) {
      const current: unknown = (parent as Record<string | number, unknown>)[slot];
      const next: Record<string, unknown> | unknown[] =
        current !== null && typeof current === 'object'
          ? (current as Record<string, unknown> | unknown[])
          : segment === ''
            ? []
            : {};
      (parent as Record<string | number, unknown>)[slot] = next;
      parent = next;
      slot = segment === '' ? (Array.isArray(next) ? next.length : Object.keys(next).length) : segment;
    }
    (parent as Record<string | number, unknown>)[slot] = value;
    root = holder.root;
  }
  return root;
}

/** Query text as the types the schema asks for: `1,2` a list of integers, `true` a boolean. */
function coerce(
  value: unknown,
  schema: JsonObject,
  pointer: string,
  resolve: (node: unknown, pointer: string) => JsonObject,
): unknown {
  const branches = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  const branchKey = schema.oneOf ? 'oneOf' : 'anyOf';
  if (Array.isArray(branches)) {
    for (const [index, node] of branches.entries()) {
      const branchPointer = joinPointer(pointer, branchKey, String(index));
      const branch = resolve(node, branchPointer);
      const wanted = isObject(value) && !Array.isArray(value) ? 'object' : 'array';
      if (branch.type === wanted) return coerce(value, branch, branchPointer, resolve);
    }
    return value;
  }
  switch (schema.type) {
    case 'array': {
      const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
      const itemPointer = joinPointer(pointer, 'items');
      const itemSchema = schema.items === undefined ? {} : resolve(schema.items, itemPointer);
      return items.map((item) => coerce(item, itemSchema, itemPointer, resolve));
    }
    case 'object': {
      if (!isObject(value) || Array.isArray(value)) return value;
      const properties = isObject(schema.properties) ? schema.properties : {};
      return Object.fromEntries(
        Object.entries(value).map(([name, item]) => {
          const propertyPointer = joinPointer(pointer, 'properties', name);
          const property = properties[name];
          return [
            name,
            property === undefined
              ? item
              : coerce(item, resolve(property, propertyPointer), propertyPointer, resolve),
          ];
        }),
      );
    }
    case 'integer':
    case 'number':
      return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    case 'boolean':
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      return value;
    default:
      return value;
  }
}
