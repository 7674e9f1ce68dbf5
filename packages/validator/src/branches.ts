// Which branch of a failed `anyOf`/`oneOf` a value was meant for. Ajv (allErrors) reports the errors of
// every branch side by side, so a live user that breaks the live schema reads as "must have required
// property 'deleted'" from the deleted one first. Each failed alternative is validated branch by branch
// here, and only the errors of the branch the value came closest to are kept: the one whose
// discriminating fields (`const` properties) it matches, then the one with the fewest errors, then the one
// whose errors lie deepest in the value.
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { isObject, joinPointer, type Located } from './openapi.js';

const COMPOSITES = ['anyOf', 'oneOf'] as const;
const MAX_NESTING = 4;

export interface SchemaAccess {
  /** The compiled schema at a JSON pointer of the document. */
  compile(pointer: string): ValidateFunction;
  /** A schema with its local `$ref`s followed. */
  resolve(located: Located<unknown>): Located;
  /** The schema at a JSON pointer of the document, `$ref`s followed. */
  at(pointer: string): Located;
}

/** The errors of a failed validation, each failed alternative's reduced to its closest branch's. */
export function closestBranchErrors(
  access: SchemaAccess,
  pointer: string,
  value: unknown,
  errors: readonly ErrorObject[],
  nesting = 0,
): ErrorObject[] {
  let kept = [...errors];
  if (nesting >= MAX_NESTING) return kept;
  // Outermost alternatives first: the errors of the branches they drop include those of inner ones.
  const composites = errors
    .filter((error) => isComposite(error) && !Array.isArray(error.params.passingSchemas))
    .sort((a, b) => depth(a.instancePath) - depth(b.instancePath));
  for (const composite of composites) {
    if (!kept.includes(composite)) continue;
    let at: Located | undefined;
    try {
      at = schemaAt(access, pointer, composite.instancePath, composite.keyword);
    } catch {
      // A schema this walk cannot follow: Ajv's own errors stand.
    }
    if (!at) continue;
    const branches = (at.node[composite.keyword] as unknown[]).map((_, index) =>
      branchErrors(access, joinPointer(at.pointer, composite.keyword, String(index)), value, composite),
    );
    const chosen = closest(access, branches, valueAt(value, composite.instancePath));
    if (!chosen) continue;
    const dropped = [composite, ...branches.flatMap((branch) => branch.errors)];
    kept = without(kept, dropped);
    const sub = valueAt(value, composite.instancePath);
    kept.push(
      ...closestBranchErrors(access, chosen.pointer, sub, chosen.relative, nesting + 1).map((error) =>
        prefixed(error, composite.instancePath),
      ),
    );
  }
  return kept;
}

interface Branch {
  pointer: string;
  /** Its errors, as paths within the whole value. */
  errors: ErrorObject[];
  /** Its errors, as paths within the value the alternative applies to. */
  relative: ErrorObject[];
}

function branchErrors(access: SchemaAccess, pointer: string, value: unknown, composite: ErrorObject): Branch {
  const validate = access.compile(pointer);
  const relative = validate(valueAt(value, composite.instancePath)) ? [] : [...(validate.errors ?? [])];
  return { pointer, relative, errors: relative.map((error) => prefixed(error, composite.instancePath)) };
}

/** The branch the value was meant for; undefined when one holds (nothing to reduce). */
function closest(access: SchemaAccess, branches: Branch[], value: unknown): Branch | undefined {
  if (branches.length === 0 || branches.some((branch) => branch.relative.length === 0)) return undefined;
  const scored = branches.map((branch, index) => ({
    branch,
    index,
    // A value that does not even have the branch's type, or differs in a field that tells the branches
    // apart, was not meant for it.
    apart:
      branch.relative.some((error) => error.instancePath === '' && error.keyword === 'type') ||
      differsInConstant(access, branch.pointer, value),
    count: branch.relative.length,
    deepest: Math.max(...branch.relative.map((error) => depth(error.instancePath))),
  }));
  scored.sort(
    (a, b) =>
      Number(a.apart) - Number(b.apart) || a.count - b.count || b.deepest - a.deepest || a.index - b.index,
  );
  return scored[0]?.branch;
}

/** Whether an object lacks, or holds another value in, a property the branch fixes with `const`. */
function differsInConstant(access: SchemaAccess, pointer: string, value: unknown): boolean {
  if (!isObject(value)) return false;
  const schema = access.at(pointer);
  const properties = isObject(schema.node.properties) ? schema.node.properties : {};
  return Object.entries(properties).some(([name, property]) => {
    const { node } = access.resolve({
      node: property,
      pointer: joinPointer(schema.pointer, 'properties', name),
    });
    // A boolean schema (`false`: the property is not allowed) fixes no value.
    if (!isObject(node)) return false;
    const single = Array.isArray(node.enum) && node.enum.length === 1;
    const fixed = 'const' in node ? node.const : single ? (node.enum as unknown[])[0] : undefined;
    if (fixed === undefined) return false;
    return !(name in value) || JSON.stringify(value[name]) !== JSON.stringify(fixed);
  });
}

/**
 * The schema holding the alternative `keyword` that applies at `instancePath` of a value validated against
 * the schema at `pointer`: down through properties, items and additionalProperties (and allOf branches
 * that name the property). Undefined where the way down is not one schema (it passes an alternative).
 */
function schemaAt(
  access: SchemaAccess,
  pointer: string,
  instancePath: string,
  keyword: string,
): Located | undefined {
  let current: Located | undefined = access.at(pointer);
  for (const token of tokens(instancePath)) current = current && childOf(access, current, token);
  if (!current) return undefined;
  if (Array.isArray(current.node[keyword])) return current;
  const holders = allOfBranches(access, current).filter((branch) => Array.isArray(branch.node[keyword]));
  return holders.length === 1 ? holders[0] : undefined;
}

function allOfBranches(access: SchemaAccess, { node, pointer }: Located): Located[] {
  return (Array.isArray(node.allOf) ? node.allOf : []).map((branch, index) =>
    access.resolve({ node: branch, pointer: joinPointer(pointer, 'allOf', String(index)) }),
  );
}

/** The one schema a value's member `token` is validated against, if there is one. */
function childOf(access: SchemaAccess, parent: Located, token: string): Located | undefined {
  const candidates = [parent, ...allOfBranches(access, parent)].flatMap(({ node, pointer }) => {
    if (isObject(node.properties) && token in node.properties)
      return [{ node: node.properties[token], pointer: joinPointer(pointer, 'properties', token) }];
    if (/^\d+$/.test(token) && isObject(node.items))
      return [{ node: node.items, pointer: joinPointer(pointer, 'items') }];
    if (isObject(node.additionalProperties))
      return [{ node: node.additionalProperties, pointer: joinPointer(pointer, 'additionalProperties') }];
    return [];
  });
  const [only, ...others] = candidates;
  return only && others.length === 0 ? access.resolve(only) : undefined;
}

function isComposite(error: ErrorObject): boolean {
  return (COMPOSITES as readonly string[]).includes(error.keyword);
}

function tokens(instancePath: string): string[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

const depth = (instancePath: string) => tokens(instancePath).length;

function valueAt(value: unknown, instancePath: string): unknown {
  let current = value;
  for (const token of tokens(instancePath)) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isObject(current)) current = current[token];
    else return undefined;
  }
  return current;
}

function prefixed(error: ErrorObject, instancePath: string): ErrorObject {
  return instancePath === '' ? error : { ...error, instancePath: `${instancePath}${error.instancePath}` };
}

const keyOf = (error: ErrorObject) =>
  `${error.instancePath} ${error.keyword} ${error.message} ${JSON.stringify(error.params)}`;

/** `errors` without one occurrence of each of `dropped` (matched by path, keyword, message and params). */
function without(errors: ErrorObject[], dropped: ErrorObject[]): ErrorObject[] {
  const counts = new Map<string, number>();
  for (const error of dropped) counts.set(keyOf(error), (counts.get(keyOf(error)) ?? 0) + 1);
  return errors.filter((error) => {
    const left = counts.get(keyOf(error)) ?? 0;
    if (left === 0) return true;
    counts.set(keyOf(error), left - 1);
    return false;
  });
}
