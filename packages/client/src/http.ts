/** `Basic base64(user:password)` with the credentials UTF-8 encoded (RFC 7617), in Node and browsers. */
export function basicAuthorization(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** Joins a base URL and an absolute path the way openapi-fetch does (no double slash). */
export function joinUrl(baseUrl: string, path: string): string {
  if (/^https?:\/\//i.test(path)) return path;
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * A copy of `request` that can still be sent after the request itself was: a clone when it has a body
 * (a body can be sent only once), the request itself when it has none, which keeps a plain GET cheap.
 */
export function unsentCopy(request: Request): Request {
  return request.body === null ? request : request.clone();
}
