import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/site.js';
import { basicAuthorization } from './http.js';

export type SiteClientOptions = {
  /** The site's REST root, e.g. `https://example.com/wp-json` (the paths start at the namespace). */
  baseUrl: string;
  /** The fetch used for every request (timeouts, proxies, retries, tests). */
  fetch?: (input: Request) => Promise<Response>;
} & (
  | {
      /** A WordPress user name, sent with `applicationPassword` as HTTP Basic on every call. */
      username: string;
      /** An application password of that user (Users → Profile → Application Passwords). */
      applicationPassword: string;
    }
  | { username?: undefined; applicationPassword?: undefined }
);

export type SiteClient = Client<paths>;

/** A typed client of the content site's REST API; anonymous unless an application password is given. */
export function createSiteClient(options: SiteClientOptions): SiteClient {
  const { username, applicationPassword } = options;
  if ((username === undefined) !== (applicationPassword === undefined)) {
    throw new TypeError('createSiteClient: give both username and applicationPassword, or neither');
  }
  return createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch ?? ((input: Request) => globalThis.fetch(input)),
    ...(username !== undefined && applicationPassword !== undefined
      ? { headers: { Authorization: basicAuthorization(username, applicationPassword) } }
      : {}),
  });
}
