// The answers the front gives from the bundle itself, where Prism cannot: Prism judges a request before it
// picks an example, so a request too large to judge (413) or one it refuses without a documented answer (its
// own 422) gets the operation's documented answer here, from the spec's own example. And a refusal names what
// was refused: the example of a documented 400 that is about one parameter (`x-state: {parameter: per_page}`
// on the Example Object) is answered about the parameter refused instead.
import { isObject, type JsonObject, type Operation, type SpecValidator } from '@platform-api/validator';

/** A documented answer: status, media type and the example's value. */
export interface DocumentedAnswer {
  status: number;
  contentType: string;
  body: unknown;
}

/** The operation's documented answer for a status, with its first example (or the one named). */
export function documentedAnswer(
  validator: SpecValidator,
  operation: Operation,
  status: number,
): DocumentedAnswer | undefined {
  const response = operation.responses[String(status)];
  if (!response) return undefined;
  const [contentType, media] = Object.entries(isObject(response.content) ? response.content : {})[0] ?? [];
  if (!contentType || !isObject(media)) return { status, contentType: 'application/json', body: {} };
  const example = examplesOf(validator, media)[0];
  return { status, contentType, body: example?.value ?? {} };
}

/** A parameter refused, and why (Prism's `sl-violations`, or the front's query reader). */
export interface Refusal {
  location: 'query' | 'path' | 'header' | 'body';
  name: string;
  message: string;
}

/** The refusals Prism lists in its `sl-violations` header. */
export function refusalsOf(header: string | undefined): Refusal[] {
  if (!header) return [];
  try {
    const violations = JSON.parse(header) as Array<{ location?: unknown[]; message?: unknown }>;
    return violations.flatMap((violation) => {
      const [, location, name] = (violation.location ?? []).map(String);
      if (!location || !name || !['query', 'path', 'header', 'body'].includes(location)) return [];
      return [{ location: location as Refusal['location'], name, message: String(violation.message ?? '') }];
    });
  } catch {
    return [];
  }
}

/**
 * The body of a documented 400 about the refused parameter: when the body is an example marked
 * `x-state: {parameter: <name>}`, that name becomes the refused one in every property name, and in every
 * text — a text about the parameter (starting with its name) becomes the refusal's message.
 */
export function aboutRefused(
  validator: SpecValidator,
  operation: Operation,
  body: Buffer,
  refused: Refusal,
): Buffer {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  const response = operation.responses['400'];
  const [, media] = Object.entries(isObject(response?.content) ? response.content : {})[0] ?? [];
  const example = isObject(media)
    ? examplesOf(validator, media).find(
        (candidate) => JSON.stringify(candidate.value) === JSON.stringify(value),
      )
    : undefined;
  const named = example && isObject(example.state) ? example.state.parameter : undefined;
  if (typeof named !== 'string' || named === refused.name) return body;
  const rename = (node: unknown): unknown => {
    if (typeof node === 'string')
      return node.startsWith(`${named} `) ? refused.message : node.split(named).join(refused.name);
    if (Array.isArray(node)) return node.map(rename);
    if (!isObject(node)) return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, item]) => [key === named ? refused.name : key, rename(item)]),
    );
  };
  return Buffer.from(JSON.stringify(rename(value)));
}

function examplesOf(validator: SpecValidator, media: JsonObject): Array<{ value: unknown; state: unknown }> {
  if (media.example !== undefined) return [{ value: media.example, state: undefined }];
  const examples = isObject(media.examples) ? Object.values(media.examples) : [];
  return examples
    .map((example) => validator.resolve<unknown>({ node: example, pointer: '' }).node)
    .filter(isObject)
    .map((example) => ({ value: example.value, state: example['x-state'] }));
}
