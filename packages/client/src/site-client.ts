import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/site.js';
import { basicAuthorization } from './http.js';
import {
  type FetchFunction,
  type ResolvedRetryOptions,
  type RetryOptions,
  resolveRetryOptions,
  retryDefaults,
  retryingFetch,
} from './retry.js';

export type SiteClientOptions = RetryOptions & {
  /** The site's REST root, e.g. `https://example.com/wp-json` (the paths start at the namespace). */
  baseUrl: string;
  /** The fetch under every attempt (proxies, tests). */
  fetch?: FetchFunction;
} & (
    | {
        /** A WordPress user name, sent with `applicationPassword` as HTTP Basic on every call. */
        username: string;
        /** An application password of that user (Users → Profile → Application Passwords). */
        applicationPassword: string;
      }
    | { username?: undefined; applicationPassword?: undefined }
  );

export type SiteClient = Client<paths> & {
  /** The same client with other `maxRetries`, `timeout` or `retryNonIdempotent` for the calls made through it. */
  withOptions(options: RetryOptions): SiteClient;
};

/**
 * A typed client of the content site's REST API; anonymous unless an application password is given.
 * Timeouts and retries as the platform client's (`maxRetries` 2, `timeout` 60 s, POST and PATCH only
 * with `retryNonIdempotent`).
 */
export function createSiteClient(options: SiteClientOptions): SiteClient {
  const { username, applicationPassword } = options;
  if ((username === undefined) !== (applicationPassword === undefined)) {
    throw new TypeError('createSiteClient: give both username and applicationPassword, or neither');
  }
  const fetchImpl = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const build = (settings: ResolvedRetryOptions): SiteClient =>
    Object.assign(
      createClient<paths>({
        baseUrl: options.baseUrl,
        fetch: retryingFetch(fetchImpl, settings),
        ...(username !== undefined && applicationPassword !== undefined
          ? { headers: { Authorization: basicAuthorization(username, applicationPassword) } }
          : {}),
      }),
      {
        withOptions: (override: RetryOptions) =>
          build(resolveRetryOptions(settings, override, 'withOptions')),
      },
    );
  return build(resolveRetryOptions(retryDefaults, options, 'createSiteClient'));
}
