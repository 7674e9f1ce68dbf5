// Compile-time checks, run by `tsc --noEmit` (the `typecheck` script, also part of `test`); never executed.
// Every `@ts-expect-error` line must fail to compile: if the spec or the client stops rejecting it, tsc fails.
// Keep each rejected call on one line: a `@ts-expect-error` covers only the line after it.
import { expectTypeOf } from 'vitest';
import { createPlatformClient, type PlatformClient, type PlatformScope, paginate } from '../../src/index.js';
import type {
  ApiError,
  components,
  OAuthError,
  operations,
  paths,
  User,
  UserSummary,
} from '../../src/types.js';

export async function correctCallsCompile(client: PlatformClient) {
  const list = await client.GET('/v1/users', { params: { query: { limit: 500, offset: 0 } } });
  expectTypeOf(list.data).toEqualTypeOf<UserSummary[] | undefined>();

  const one = await client.GET('/v1/users/{id}', { params: { path: { id: 42 } } });
  if (one.data) expectTypeOf(one.data).toExtend<User | { deleted: true }>();
  if (one.error) expectTypeOf(one.error).toExtend<ApiError | OAuthError>();

  const created = await client.POST('/v1/users', {
    params: { query: { sendInvite: true } },
    body: { name: 'Ada Lovelace', email: 'ada@example.com', role: 'Admin', title: 'Engineer' },
  });
  expectTypeOf(created.data?.id).toEqualTypeOf<number | undefined>();

  await client.PUT('/v1/users/{id}', { params: { path: { id: 42 } }, body: { title: 'CTO' } });
  await client.DELETE('/v1/groups/{id}/users/{userId}', { params: { path: { id: 1, userId: 2 } } });
  await client.POST('/v1/chat/integrations/{integrationId}/subscriptions', {
    params: { path: { integrationId: 'i-1' } },
    body: { eventType: 'SLASH_COMMAND', url: 'https://bot.example.com/events', slashCommand: 'deploy' },
  });

  for await (const user of paginate(client, '/v1/users', { limit: 500 })) {
    expectTypeOf(user).toEqualTypeOf<UserSummary>();
  }
  for await (const memberId of paginate(client, '/v1/groups/{id}/users', { path: { id: 1 } })) {
    expectTypeOf(memberId).toEqualTypeOf<number>();
  }
}

export async function wrongCallsDoNotCompile(client: PlatformClient) {
  // A path the API does not have.
  // @ts-expect-error -- /v1/userz is not a path of the platform API
  await client.GET('/v1/userz', {});

  // A method the path does not have.
  // @ts-expect-error -- /v1/users has no PATCH
  await client.PATCH('/v1/users', {});

  // A wrong path parameter name, and a missing one.
  // @ts-expect-error -- the parameter is `id`, not `userId`
  await client.GET('/v1/users/{id}', { params: { path: { userId: '42' } } });
  // @ts-expect-error -- `id` is an integer
  await client.GET('/v1/users/{id}', { params: { path: { id: 'forty-two' } } });
  // @ts-expect-error -- `id` is required
  await client.GET('/v1/users/{id}', { params: { path: {} } });

  // A query parameter of the wrong type.
  // @ts-expect-error -- limit is an integer
  await client.GET('/v1/users', { params: { query: { limit: 'all' } } });

  // A body field of the wrong type, and a value outside an enum.
  // @ts-expect-error -- name is a string
  await client.POST('/v1/users', { body: { name: 42, email: 'ada@example.com', role: 'Admin' } });
  // @ts-expect-error -- role is Admin, Privileged or Participant
  await client.POST('/v1/users', { body: { name: 'Ada', email: 'ada@example.com', role: 'Root' } });

  // A missing required body field.
  // @ts-expect-error -- email is required on create
  await client.POST('/v1/users', { body: { name: 'Ada', role: 'Admin' } });

  // paginate only takes offset-paged list paths, with their path parameters.
  // @ts-expect-error -- /v1/users/{id} is not a list
  paginate(client, '/v1/users/{id}', {});
  // @ts-expect-error -- the group id is required
  paginate(client, '/v1/groups/{id}/users');
}

const credentials = { baseUrl: 'https://api.example.com', clientId: 'id', clientSecret: 'secret' };

export function optionsAreChecked() {
  expectTypeOf<PlatformScope>().toEqualTypeOf<'user' | 'data' | 'chat'>();
  createPlatformClient({ ...credentials, scopes: ['user', 'data', 'chat'], tokenRefreshMarginSeconds: 30 });
  // @ts-expect-error -- `admin` is not a scope of the platform API
  createPlatformClient({ ...credentials, scopes: ['admin'] });
  // @ts-expect-error -- the client secret is required
  createPlatformClient({ baseUrl: 'https://api.example.com', clientId: 'id' });
}

export function generatedTypesAreExported() {
  type ListUsersQuery = NonNullable<operations['listUsers']['parameters']['query']>;
  expectTypeOf<ListUsersQuery['limit']>().toEqualTypeOf<number | undefined>();
  expectTypeOf<paths['/v1/users']['get']>().toEqualTypeOf<operations['listUsers']>();
  expectTypeOf<User>().toEqualTypeOf<components['schemas']['User']>();
}
