// A failing request as one `curl` line a reader can paste: secrets replaced by shell variables
// ($TOKEN, $BASIC_AUTH, …) so reports can be shared, everything else as it was sent.
import type { SentRequest } from '../client.js';

/** Bodies above this size are summarised instead of printed. */
const MAX_INLINE_BODY = 4096;

export function toCurl(request: SentRequest, secrets: Record<string, string> = {}): string {
  const parts = ['curl', '-X', request.method, quote(redact(request.url, secrets))];
  for (const [name, value] of Object.entries(request.headers)) {
    parts.push('-H', quote(`${name}: ${redact(value, secrets)}`));
  }
  if (request.body !== undefined) {
    const size = typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.byteLength;
    if (size > MAX_INLINE_BODY) {
      const head = typeof request.body === 'string' ? request.body.slice(0, 40) : '';
      parts.push('--data-binary', quote(`@body-of-${size}-bytes`), `# body starts ${JSON.stringify(head)}`);
    } else if (typeof request.body === 'string') {
      parts.push('--data-raw', quote(redact(request.body, secrets)));
    } else {
      // Bytes as they were (invalid UTF-8, NUL): printf writes them, process substitution hands them to curl.
      parts.push('--data-binary', `@<(printf '${printfEscaped(request.body)}')`);
    }
  }
  return parts.join(' ');
}

/**
 * The request with each secret as its `${NAME}` placeholder in the URL, header values and a text body, for
 * a report file that can be shared and replayed (replay fills the placeholders in from its own credentials).
 */
export function redactRequest(request: SentRequest, secrets: Record<string, string>): SentRequest {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, redact(value, secrets)]),
  );
  const body = typeof request.body === 'string' ? redact(request.body, secrets) : request.body;
  return { ...request, url: redact(request.url, secrets), headers, ...(body === undefined ? {} : { body }) };
}

/** Bytes as a printf format in single quotes: printable ASCII as itself, everything else as \xHH. */
function printfEscaped(bytes: Uint8Array): string {
  let format = '';
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    if (char === '%') format += '%%';
    else if (byte >= 0x20 && byte < 0x7f && char !== '\\' && char !== "'") format += char;
    else format += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return format;
}

/** Replaces each secret's value by `${NAME}` (longest first, so one secret inside another stays whole). */
export function redact(text: string, secrets: Record<string, string>): string {
  let redacted = text;
  const entries = Object.entries(secrets).filter(([, value]) => value.length >= 4);
  entries.sort(([, a], [, b]) => b.length - a.length);
  for (const [name, value] of entries) redacted = redacted.split(value).join(`\${${name}}`);
  return redacted;
}

/**
 * Single quotes keep everything literal; a value holding a `${VAR}` placeholder goes in double quotes
 * so the shell expands it, with every other `$`, backquote, backslash and double quote escaped.
 */
function quote(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text;
  if (!/\$\{[A-Z][A-Z0-9_]*\}/.test(text)) return `'${text.replaceAll("'", `'\\''`)}'`;
  const escaped = text.replace(/[\\"`]/g, '\\$&').replace(/\$(?!\{[A-Z][A-Z0-9_]*\})/g, '\\$');
  return `"${escaped}"`;
}
