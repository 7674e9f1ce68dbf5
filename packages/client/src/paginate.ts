import { PlatformApiError } from './errors.js';
import type { paths } from './generated/platform.js';
import { defaultPageSizes } from './generated/platform.paging.js';
import type { PlatformClient } from './platform-client.js';

type GetOperation<Path> = Path extends { get: infer Operation } ? Operation : never;
type QueryOf<Operation> = Operation extends { parameters: { query?: infer Query } }
  ? NonNullable<Query>
  : never;
type PathParamsOf<Operation> = Operation extends { parameters: { path: infer Params } } ? Params : never;
type JsonArrayOf<Operation> = Operation extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body extends readonly unknown[]
    ? Body
    : never
  : never;

/** The list operations paged with `limit` and `offset` that answer with a JSON array (users, groups, …). */
export type OffsetPagedPath = {
  [P in keyof paths]: [JsonArrayOf<GetOperation<paths[P]>>] extends [never]
    ? never
    : 'limit' | 'offset' extends keyof QueryOf<GetOperation<paths[P]>>
      ? P
      : never;
}[keyof paths];

/** One element of the list `path` answers with. */
export type PagedItem<P extends OffsetPagedPath> = JsonArrayOf<GetOperation<paths[P]>>[number];

export type PaginateOptions<P extends OffsetPagedPath> = {
  /** Page size sent as `limit` (left out: the operation's default from the spec, e.g. 50 for users). */
  limit?: number;
  /** The operation's other query parameters. */
  query?: Omit<QueryOf<GetOperation<paths[P]>>, 'limit' | 'offset'>;
} & ([PathParamsOf<GetOperation<paths[P]>>] extends [never]
  ? { path?: never }
  : { path: PathParamsOf<GetOperation<paths[P]>> });

type PaginateArguments<P extends OffsetPagedPath> = [PathParamsOf<GetOperation<paths[P]>>] extends [never]
  ? [options?: PaginateOptions<P>]
  : [options: PaginateOptions<P>];

/**
 * Every item of an offset-paged list, fetched page by page (`offset` advances by the items received)
 * until a page is empty or shorter than the page size (`limit`, or the operation's default): that page
 * is the last, and no request is made for the empty one after it. Throws `PlatformApiError` when a page
 * fails.
 *
 *     for await (const user of paginate(client, '/v1/users', { limit: 500 })) console.log(user.email);
 */
export async function* paginate<P extends OffsetPagedPath>(
  client: PlatformClient,
  path: P,
  ...[options]: PaginateArguments<P>
): AsyncGenerator<PagedItem<P>, void, undefined> {
  // The path is generic here, which openapi-fetch's overloads cannot narrow; the signature above is the check.
  const get = client.GET as unknown as (
    path: string,
    init: { params: { path?: unknown; query: Record<string, unknown> } },
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const pageSize: number | undefined =
    options?.limit ?? (defaultPageSizes as Partial<Record<string, number>>)[path];
  let offset = 0;
  for (;;) {
    const query: Record<string, unknown> = { ...options?.query, offset };
    if (options?.limit !== undefined) query.limit = options.limit;
    const { data, error, response } = await get(path, {
      params: { ...(options?.path ? { path: options.path } : {}), query },
    });
    if (!response.ok) throw PlatformApiError.from({ error, response }, `GET ${path} (offset ${offset})`);
    if (!Array.isArray(data)) {
      throw new PlatformApiError(
        `GET ${path} (offset ${offset}) did not answer with a JSON array`,
        response.status,
        undefined,
      );
    }
    if (data.length === 0) return;
    yield* data as PagedItem<P>[];
    // A short page is the last: a server (or a stateless mock) need not be asked for the empty one.
    if (pageSize !== undefined && data.length < pageSize) return;
    offset += data.length;
  }
}
