import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiProblem } from './errors.js';

/*
 * How request bodies become values, for every media type the spec uses: JSON, form (token endpoint) and CSV
 * (dataset data, with its larger limit); anything else is kept as bytes so the route can answer 415 itself
 * with the media types the operation lists. Two rules hold for all of them:
 * - an empty body is no body, whatever its Content-Type (generic clients send `Content-Type:
 *   application/json` on every request, a DELETE included); an operation that requires a body then says
 *   so. The one exception: an empty CSV sent where CSV is accepted is a CSV without rows;
 * - text must be valid UTF-8: a malformed byte is refused (400), never stored as U+FFFD.
 */

/** No request body of the API nests anywhere near this deep. */
const MAX_JSON_DEPTH = 32;

/** Whether JSON text nests arrays/objects deeper than `max` (a linear scan that skips strings). */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

type Done = (error: Error | null, body?: unknown) => void;

/**
 * Decodes a text body, or refuses it. An empty body is handed on as no body at all — or, for a media type
 * whose documents may be empty (CSV: no rows), as `emptyDocument`, which the route takes as no body unless
 * the operation accepts that media type.
 */
function textParser(
  parse: (text: string, request: FastifyRequest, done: Done) => void,
  emptyDocument?: string,
) {
  return (request: FastifyRequest, body: Buffer, done: Done) => {
    if (body.length === 0) return done(null, emptyDocument);
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return done(new ApiProblem(400, 'Body is not valid UTF-8'));
    }
    parse(text, request, done);
  };
}

export function registerBodyParsers(app: FastifyInstance, limits: { csvBodyLimitBytes: number }): void {
  // Only these parsers: Fastify's built-in text/plain one would hand on an empty body as ''.
  app.removeAllContentTypeParsers();
  // Fastify's own JSON parser, behind a nesting-depth check, so a deeply nested body is a 400 instead of a
  // stack overflow in the parser or the validator. `__proto__` and `constructor.prototype` keys are
  // removed while parsing: unknown fields are ignored (the spec says so), and these cannot poison anything.
  const parseJson = app.getDefaultJsonParser('remove', 'remove');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    textParser((text, request, done) => {
      if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
        return done(new ApiProblem(400, `Body is nested deeper than ${MAX_JSON_DEPTH} levels`));
      }
      parseJson(request, text, done);
    }),
  );
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer' },
    textParser((text, _request, done) => {
      // Repeated names become arrays, so that a repeated parameter can be refused (RFC 6749 §3.1).
      // No prototype: a parameter named `__proto__` is a parameter like any other.
      const out: Record<string, string | string[]> = Object.create(null);
      for (const [key, value] of new URLSearchParams(text)) {
        const previous = out[key];
        out[key] =
          previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
      }
      done(null, out);
    }),
  );
  app.addContentTypeParser(
    'text/csv',
    { parseAs: 'buffer', bodyLimit: limits.csvBodyLimitBytes },
    textParser((text, _request, done) => done(null, text), ''),
  );
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body: Buffer, done) =>
    done(null, body.length === 0 ? undefined : body),
  );
}
