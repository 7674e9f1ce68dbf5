// An injected `fetch` that plays the platform's token endpoint and API, recording every request.
// Nothing is mocked at module level: the client under test receives this function as its `fetch`.

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

export type Handler = (request: RecordedRequest) => Response | Promise<Response>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

/** A fetch that answers token requests with `token-1`, `token-2`, … and everything else with `api`. */
export function fakePlatform(options: { api?: Handler; token?: Handler; expiresIn?: number } = {}) {
  const tokenRequests: RecordedRequest[] = [];
  const apiRequests: RecordedRequest[] = [];
  let issued = 0;
  const issueToken: Handler = () => {
    issued += 1;
    return json(
      {
        access_token: `token-${issued}`,
        expires_in: options.expiresIn ?? 3599,
        token_type: 'bearer',
        scope: 'user',
      },
      200,
      { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
    );
  };
  const fetch = async (input: Request): Promise<Response> => {
    const recorded: RecordedRequest = {
      method: input.method,
      url: new URL(input.url),
      headers: new Headers(input.headers),
      body: await input.text(),
    };
    if (recorded.url.pathname === '/oauth/token') {
      tokenRequests.push(recorded);
      return (options.token ?? issueToken)(recorded);
    }
    apiRequests.push(recorded);
    return (options.api ?? (() => json([])))(recorded);
  };
  return { fetch, tokenRequests, apiRequests, issueToken };
}

/** A promise with its resolve function, to hold a response back until the test releases it. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
