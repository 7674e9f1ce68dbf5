// The examples phase: every operation called once with the request the spec's own examples describe.
// Requests that create things get this run's id in their free-text fields and e-mail addresses, so a
// second run against the same server takes the same paths instead of colliding with the first.
import {
  isObject,
  type JsonObject,
  type Located,
  type Operation,
  type SpecValidator,
} from '@platform-api/validator';
import type { CallOptions } from '../../client.js';
import { baseRequest } from '../requests.js';
import type { Session } from '../session.js';
import { requestBodySchema, withFreshUniques } from '../values/index.js';
import { judgeCall } from './judge.js';

const SAFE_METHODS = new Set(['get', 'head', 'options']);

export async function examplesPhase(session: Session): Promise<void> {
  for (const operation of session.operations) {
    let request: { options: CallOptions; stale?: string } = {
      options: baseRequest(session.validator, operation, session.seed, session.text),
    };
    if (!SAFE_METHODS.has(operation.method)) request = uniqueRequest(session, operation, request.options);
    const result = await session.call(operation, request.options);
    judgeCall(session, result, { valid: true }, { stale: request.stale });
  }
}

function uniqueRequest(
  session: Session,
  operation: Operation,
  request: CallOptions,
): { options: CallOptions; stale?: string } {
  const body = requestBodySchema(operation);
  if (!body || !isObject(request.body)) return { options: request };
  const tag = session.uniqueTag();
  // The unique fields too, where the free-text tag left them (a format other than e-mail) or broke them.
  const { value, stale } = withFreshUniques(
    session.validator,
    body.schema,
    uniqueValue(session.validator, body.schema, request.body, tag),
    tag,
  );
  return { options: { ...request, body: value }, ...(stale === undefined ? {} : { stale }) };
}

/**
 * Makes the free-text strings and e-mail addresses of a value unique (`tag`: the session's uniqueTag()),
 * where the schema allows.
 */
export function uniqueValue(
  validator: SpecValidator,
  schema: Located<unknown>,
  value: unknown,
  tag: string,
): unknown {
  const resolved = validator.resolve(schema as Located);
  const node = resolved.node;
  if (typeof value === 'string') {
    if (node.enum || node.const !== undefined) return value;
    if (node.format === 'email') return value.replace('@', `+${tag}@`);
    if (node.format !== undefined) return value;
    const unique = `${value} ${tag}`;
    // Checked against the whole schema, not only its own maxLength and pattern: the string may be one
    // branch of an anyOf whose enum or pattern the tag would break (LenientBoolean's "true").
    return validator.validateAt(resolved.pointer, unique).length === 0 ? unique : value;
  }
  if (!isObject(value)) return value;
  const copy: JsonObject = { ...value };
  const properties = isObject(node.properties) ? node.properties : {};
  for (const [name, item] of Object.entries(copy)) {
    if (name in properties)
      copy[name] = uniqueValue(
        validator,
        { node: properties[name], pointer: `${resolved.pointer}/properties/${name}` },
        item,
        tag,
      );
  }
  for (const [index, branch] of ((node.allOf as unknown[]) ?? []).entries()) {
    const merged = uniqueValue(
      validator,
      { node: branch, pointer: `${resolved.pointer}/allOf/${index}` },
      copy,
      tag,
    );
    if (isObject(merged)) Object.assign(copy, merged);
  }
  return copy;
}
