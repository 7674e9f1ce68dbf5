// The README's usage, configuration and pagination snippets, type-checked by `pnpm typecheck` so the README
// cannot drift from the generated types. (Imports are relative here; in an application they are
// `@platform-api/client`.)
import {
  createPlatformClient,
  createSiteClient,
  PlatformApiError,
  PlatformAuthError,
  paginate,
} from '../src/index.js';

export async function usage(datasetId: string, groupId: number) {
  const platform = createPlatformClient({
    baseUrl: 'https://api.example.com',
    clientId: process.env.PLATFORM_CLIENT_ID ?? '',
    clientSecret: process.env.PLATFORM_CLIENT_SECRET ?? '',
    scopes: ['user', 'data'],
  });

  const created = await platform.POST('/v1/users', {
    params: { query: { sendInvite: false } },
    // A new address each run: the API answers 409 Conflict to an e-mail it already has.
    body: { name: 'Ada Lovelace', email: `ada.${Date.now()}@example.com`, role: 'Admin' },
  });
  if (created.error) throw PlatformApiError.from(created);
  console.log(created.data.id, created.response.headers.get('Location'));

  const { data: users = [] } = await platform.GET('/v1/users', { params: { query: { limit: 10 } } });
  console.log(users.map((user) => user.email));

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
    if (page.length < 500) break;
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

export function configuration() {
  const platform = createPlatformClient({
    baseUrl: 'https://api.example.com',
    clientId: 'id',
    clientSecret: 'secret',
    maxRetries: 3, // default 2: connection errors, timeouts, 408, 409, 429, 5xx; POST/PATCH only if opted in
    timeout: 10_000, // default 60 s, per attempt
  });
  // Per call: a copy of the client with other settings (same token).
  return platform.withOptions({ maxRetries: 0, timeout: 2_000 }).GET('/v1/users');
}
