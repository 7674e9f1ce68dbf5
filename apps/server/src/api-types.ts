import type { operations } from '@platform-api/client/internal';

/*
 * The API's types: the spec's generated types (@platform-api/client/internal: the whole API, x-internal
 * operations included, which the published client leaves out) and the bundled document itself. Every
 * layer may use them; they import nothing of the server.
 */

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked generically.
export type OpenApiDocument = Record<string, any>;

// `operations` also holds the webhooks' operations (onMessagePosted, …), which the server sends, not serves.
export type OperationId = Exclude<keyof operations, `on${Capitalize<string>}`>;
export type Schemas = import('@platform-api/client/internal').components['schemas'];
type Op<K extends OperationId> = operations[K];
type ContentOf<T> = T extends { content: infer C } ? C[keyof C] : undefined;
export type PathOf<K extends OperationId> = Op<K>['parameters'] extends { path?: infer P }
  ? NonNullable<P>
  : never;
export type QueryOf<K extends OperationId> = Op<K>['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;
export type BodyOf<K extends OperationId> =
  Op<K> extends { requestBody?: infer R } ? ContentOf<NonNullable<R>> : undefined;
type ErrorBody = Schemas['ApiError'] | Schemas['OAuthError'];
/** The statuses a handler answers with: each documented one whose body is not an error (errors are thrown). */
export type AnswerStatus<K extends OperationId> = {
  [S in keyof Op<K>['responses']]: ContentOf<Op<K>['responses'][S]> extends ErrorBody ? never : S;
}[keyof Op<K>['responses']];
export type AnswerOf<K extends OperationId> = {
  [S in AnswerStatus<K>]: ContentOf<Op<K>['responses'][S]>;
}[AnswerStatus<K>];
