// WordPress versions, and the marks the site spec puts on what differs between them (spec/site/README.md):
// `x-wp-since: '6.7'` (older versions lack it), `x-wp-before: [{version, schema}]` (older versions have
// that schema instead) and `x-wp-no-route: true` (no version serves it).
import { isObject, type JsonObject } from '@platform-api/validator';

/** Compares dotted versions number by number (`6.10` > `6.9`; a missing part counts as 0). */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const diff = (left[i] ?? 0) - (right[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}

/** Is `version` older than `than`? */
export function olderThan(version: string, than: string): boolean {
  return compareVersions(version, than) < 0;
}

/**
 * Whether a version is in a range. A range is comparators that must all hold (`>=6.1 <6.3`), or a bare
 * version that names its line (`6.1` holds for 6.1 and 6.1.9); a list of ranges holds when one does.
 */
export function inVersionRange(version: string, range: string | string[]): boolean {
  if (Array.isArray(range)) return range.some((one) => inVersionRange(version, one));
  const terms = range.trim().split(/\s+/).filter(Boolean);
  if (terms.length === 0) throw new Error('empty version range');
  return terms.every((term) => {
    const match = /^(<=|>=|<|>|=)?(\d+(?:\.\d+)*)$/.exec(term);
    if (!match?.[2]) throw new Error(`not a version range: ${JSON.stringify(range)}`);
    const [, operator, bound] = match;
    const order = compareVersions(version, bound);
    switch (operator) {
      case '<':
        return order < 0;
      case '<=':
        return order <= 0;
      case '>':
        return order > 0;
      case '>=':
        return order >= 0;
      case '=':
        return order === 0;
      default:
        // A bare version is its line: `6.1` holds for 6.1.9, not for 6.10.
        return version === bound || version.startsWith(`${bound}.`);
    }
  });
}

/** The `x-wp-since` of a node (an operation, parameter or schema), if it has one. */
export function wpSince(node: unknown): string | undefined {
  const since = isObject(node) ? node['x-wp-since'] : undefined;
  return typeof since === 'string' ? since : undefined;
}

export interface WpBefore {
  /** Versions older than this one differ. */
  version: string;
  /** What they have instead; absent when they lack the thing altogether. */
  schema?: JsonObject;
  description?: string;
}

/** The `x-wp-before` entries of a node, oldest boundary first. */
export function wpBefore(node: unknown): WpBefore[] {
  const entries = isObject(node) ? node['x-wp-before'] : undefined;
  if (!Array.isArray(entries)) return [];
  return entries
    .filter((entry): entry is JsonObject => isObject(entry) && typeof entry.version === 'string')
    .map((entry) => ({
      version: String(entry.version),
      schema: isObject(entry.schema) ? entry.schema : undefined,
      description: typeof entry.description === 'string' ? entry.description : undefined,
    }))
    .sort((a, b) => compareVersions(a.version, b.version));
}

/** The `x-wp-before` entry that applies to a version: the lowest boundary above it. */
export function wpBeforeFor(node: unknown, version: string): WpBefore | undefined {
  return wpBefore(node).find((entry) => olderThan(version, entry.version));
}

/** `x-wp-no-route: true`: the service description lists it, no WordPress registers it. */
export function wpNoRoute(node: unknown): boolean {
  return isObject(node) && node['x-wp-no-route'] === true;
}

/**
 * The site spec as one WordPress version has it, for the generated phases: parameters and schema
 * properties marked `x-wp-since` a newer version are left out (that version ignores them), and a
 * parameter marked `x-wp-before` that version's boundary takes the older schema (or is left out when
 * older versions lack it). Operations stay: the spec documents what older versions answer there.
 */
export function specForVersion<T extends object>(document: T, version: string): T {
  const copy = structuredClone(document) as T & { components?: { parameters?: Record<string, unknown> } };
  const newer = (node: unknown) => {
    const since = wpSince(node);
    return since !== undefined && olderThan(version, since);
  };
  const resolveParameter = (node: unknown): unknown => {
    const ref = isObject(node) ? node.$ref : undefined;
    const name = typeof ref === 'string' ? /^#\/components\/parameters\/(.+)$/.exec(ref)?.[1] : undefined;
    return name ? copy.components?.parameters?.[name] : node;
  };
  const parameters = (list: unknown[]): unknown[] =>
    list.flatMap((item) => {
      const parameter = resolveParameter(item);
      if (newer(parameter)) return [];
      const older = wpBeforeFor(parameter, version);
      if (!older) return [item];
      return older.schema && isObject(parameter) ? [{ ...parameter, schema: older.schema }] : [];
    });
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (!isObject(node)) return;
    if (Array.isArray(node.parameters)) node.parameters = parameters(node.parameters);
    if (isObject(node.properties)) {
      const properties = node.properties;
      const dropped = Object.keys(properties).filter((name) => newer(properties[name]));
      for (const name of dropped) delete properties[name];
      if (Array.isArray(node.required))
        node.required = node.required.filter((name) => !dropped.includes(name));
    }
    Object.values(node).forEach(walk);
  };
  walk(copy);
  return copy;
}
