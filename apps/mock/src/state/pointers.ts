// JSON pointers with a wildcard, over stored items and request bodies (`x-state` declarations name fields
// this way: `/schema/columns/*/name`, `{/message/text: /commandLine}`).
import { isObject, type JsonObject } from '@platform-api/validator';

/** The values at a pointer with `*` for every array item (`/schema/columns/*\/name`). */
export function pick(value: unknown, path: string): unknown[] {
  let current: unknown[] = [value];
  for (const token of path.split('/').filter(Boolean)) {
    current = current.flatMap((node) => {
      if (token === '*') return Array.isArray(node) ? node : [];
      return isObject(node) && node[token] !== undefined ? [node[token]] : [];
    });
  }
  return current;
}

/** Sets the value at a JSON pointer of an object, making the objects on the way. */
export function setAt(target: JsonObject, pointer: string, value: unknown): void {
  const tokens = pointer.split('/').filter(Boolean);
  let node: JsonObject = target;
  for (const token of tokens.slice(0, -1)) {
    if (!isObject(node[token])) node[token] = {};
    node = node[token] as JsonObject;
  }
  const last = tokens.at(-1);
  if (last !== undefined) node[last] = value;
}
