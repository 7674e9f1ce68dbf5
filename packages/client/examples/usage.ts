// The README's usage, configuration and pagination snippets, type-checked by `pnpm typecheck` so the README
// cannot drift from the generated types. (Imports are relative here; in an application they are
// `@platform-api/client`.)
import type { Middleware } from 'openapi-fetch';
import { createPlatformClient, createSiteClient, PlatformAuthError, paginate } from '../src/index.js';

export async function usage(datasetId: string, groupId: number) {
  const platform = createPlatformClient({
    baseUrl: 'https://api.example.com',
    clientId: process.env.PLATFORM_CLIENT_ID ?? '',
    clientSecret: process.env.PLATFORM_CLIENT_SECRET ?? '',
    scopes: ['user', 'data'],
  });

  const {
    data: user,
    error,
    response,
  } = await platform.POST('/v1/users', {
    params: { query: { sendInvite: false } },
    body: { name: 'Ada Lovelace', email: 'ada@example.com', role: 'Admin' },
  });
  if (error) throw new Error(`create failed: ${response.status} ${JSON.stringify(error)}`);
  console.log(user.id, response.headers.get('Location'));

  const { data: dataset } = await platform.GET('/v1/datasets/{id}', { params: { path: { id: datasetId } } });
  console.log(dataset?.name);

  await platform.PUT('/v1/datasets/{id}/data', {
    params: { path: { id: datasetId } },
    headers: { 'Content-Type': 'text/csv' },
    body: 'name,amount\nwidgets,12\n',
    bodySerializer: (csv) => csv,
  });
  const { data: csv } = await platform.GET('/v1/datasets/{id}/data', {
    params: { path: { id: datasetId }, query: { includeHeader: true } },
    parseAs: 'text',
  });
  console.log(csv);

  try {
    await platform.GET('/v1/users');
  } catch (failure) {
    if (failure instanceof PlatformAuthError) console.error(failure.error, failure.body?.error_description);
    throw failure;
  }

  for await (const summary of paginate(platform, '/v1/users', { limit: 500 })) {
    console.log(summary.id, summary.email);
  }
  for await (const memberId of paginate(platform, '/v1/groups/{id}/users', { path: { id: groupId } })) {
    console.log(memberId);
  }
  const datasets = [];
  for await (const item of paginate(platform, '/v1/datasets', { limit: 50, query: { sort: 'name' } })) {
    datasets.push(item);
  }

  for (let offset = 0; ; ) {
    const { data: page = [] } = await platform.GET('/v1/users', {
      params: { query: { limit: 500, offset } },
    });
    if (page.length === 0) break;
    offset += page.length;
  }
}

export async function site() {
  const client = createSiteClient({
    baseUrl: 'https://developer.example.com/wp-json',
    username: 'editor',
    applicationPassword: process.env.WP_APP_PASSWORD ?? '',
  });
  const { data: posts } = await client.GET('/wp/v2/posts', { params: { query: { per_page: 5 } } });
  return posts;
}

export function timeouts() {
  return createPlatformClient({
    baseUrl: 'https://api.example.com',
    clientId: 'id',
    clientSecret: 'secret',
    // A 10 s timeout on every request, the token request included.
    fetch: (request) => fetch(request, { signal: AbortSignal.timeout(10_000) }),
  });
}

/** Retries 429 and 503 after Retry-After (or 0.5 s × 2ⁿ with jitter), at most three times. */
export function retryOverload(fetchImpl: (request: Request) => Promise<Response> = fetch): Middleware {
  const requestCopies = new WeakMap<Request, Request>();
  return {
    onRequest({ request }) {
      requestCopies.set(request, request.clone()); // a body can be sent only once
      return undefined;
    },
    async onResponse({ request, response }) {
      const copy = requestCopies.get(request);
      let answer = response;
      for (
        let attempt = 0;
        copy && attempt < 3 && (answer.status === 429 || answer.status === 503);
        attempt++
      ) {
        const retryAfter = Number(answer.headers.get('Retry-After'));
        const delayMs = retryAfter > 0 ? retryAfter * 1000 : 500 * 2 ** attempt * (0.5 + Math.random());
        await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, 30_000)));
        answer = await fetchImpl(copy.clone());
      }
      return answer;
    },
  };
}
