// Text no schema speaks for. A property a schema does not list is allowed (unless the object is closed),
// but nothing says what its name or value may hold: a spec may forbid U+0000 in every text in prose only
// (ours does: "No text may contain U+0000"), so whether a server must accept a NUL there is not the
// schemas' to decide. Such requests are sent, their answers checked, their acceptance judged neither way.
import { isObject, type Located, type SpecValidator } from '@platform-api/validator';
import { child, folded, resolveSchema } from './schemas.js';

const NUL = '\u0000';

/** Whether the value holds U+0000 in the name or the value of a property its schema does not describe. */
export function nulOutsideSchema(
  validator: SpecValidator,
  schema: Located<unknown>,
  value: unknown,
): boolean {
  const located = folded(validator, resolveSchema(validator, schema));
  const node = located.node;
  // Under alternatives, what one branch leaves undescribed is enough to leave the answer open.
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = node[keyword];
    if (
      Array.isArray(branches) &&
      branches.some((_, index) => nulOutsideSchema(validator, child(located, keyword, String(index)), value))
    )
      return true;
  }
  if (Array.isArray(value)) {
    if (node.items === undefined) return holdsNul(value);
    return value.some((item) => nulOutsideSchema(validator, child(located, 'items'), item));
  }
  if (!isObject(value)) return false;
  const properties = isObject(node.properties) ? node.properties : {};
  return Object.entries(value).some(([name, item]) => {
    if (name in properties) return nulOutsideSchema(validator, child(located, 'properties', name), item);
    if (name.includes(NUL)) return true;
    if (isObject(node.additionalProperties))
      return nulOutsideSchema(validator, child(located, 'additionalProperties'), item);
    return holdsNul(item);
  });
}

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (Array.isArray(value)) return value.some(holdsNul);
  if (isObject(value))
    return Object.entries(value).some(([name, item]) => name.includes(NUL) || holdsNul(item));
  return false;
}
