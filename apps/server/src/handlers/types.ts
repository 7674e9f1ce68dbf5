import type { operations } from '@platform-api/client/internal';
import type { Operation } from '@platform-api/validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AuthContext, AuthenticatedClient, TokenSettings } from '../auth/tokens.js';
import type { Clock } from '../clock.js';
import type { ServerConfig } from '../config.js';
import type { Database, Dialect } from '../db/schema.js';
import type { OpenApiDocument } from '../spec.js';

/** What every handler can use. One instance per app. */
export interface Services {
  db: Kysely<Database>;
  dialect: Dialect;
  clock: Clock;
  config: ServerConfig;
  doc: OpenApiDocument;
  logger: Logger;
  /** Signing keys and the live-client cache behind access tokens. */
  tokens: TokenSettings;
  /** SSRF check of a webhook URL at subscription time (src/delivery/ssrf.ts). */
  checkWebhookTarget(url: string, allowList: string[]): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** False while shutting down or when the database is unreachable. */
  isReady(): Promise<boolean>;
  isShuttingDown(): boolean;
}

/*
 * Handler types derived from the spec's generated types (@platform-api/client/internal: the whole API,
 * x-internal operations included, which the published client leaves out): each handler gets
 * the path/query/body types of its operation and must answer with one of its documented bodies.
 */
// `operations` also holds the webhooks' operations (onMessagePosted, …), which the server sends, not serves.
export type OperationId = Exclude<keyof operations, `on${Capitalize<string>}`>;
export type { components } from '@platform-api/client/internal';
export type Schemas = import('@platform-api/client/internal').components['schemas'];
type Op<K extends OperationId> = operations[K];
type ContentOf<T> = T extends { content: infer C } ? C[keyof C] : undefined;
type PathOf<K extends OperationId> = Op<K>['parameters'] extends { path?: infer P } ? NonNullable<P> : never;
type QueryOf<K extends OperationId> = Op<K>['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;
type BodyOf<K extends OperationId> =
  Op<K> extends { requestBody?: infer R } ? ContentOf<NonNullable<R>> : undefined;
type ErrorBody = Schemas['ApiError'] | Schemas['OAuthError'];
/** The statuses a handler answers with: each documented one whose body is not an error (errors are thrown). */
type AnswerStatus<K extends OperationId> = {
  [S in keyof Op<K>['responses']]: ContentOf<Op<K>['responses'][S]> extends ErrorBody ? never : S;
}[keyof Op<K>['responses']];
type AnswerOf<K extends OperationId> = {
  [S in AnswerStatus<K>]: ContentOf<Op<K>['responses'][S]>;
}[AnswerStatus<K>];

export interface HandlerContext<K extends OperationId = OperationId> {
  request: FastifyRequest;
  reply: FastifyReply;
  operation: Operation;
  services: Services;
  /** The bearer token's context (operations secured by oauth2). */
  auth: AuthContext | undefined;
  /** The authenticated API client (operations secured by basicAuth: the token endpoint). */
  client: AuthenticatedClient | undefined;
  /** The callback token's context (postCallbackMessage). */
  callback: { instanceId: number; integrationId: string; channelId: string } | undefined;
  /** Path parameters, validated and coerced against the spec before the handler runs. */
  params: PathOf<K>;
  /** Query parameters, validated, coerced and defaulted against the spec. */
  query: QueryOf<K>;
  /** The request body, validated against the spec's schema for its media type. */
  body: BodyOf<K>;
}

export interface HandlerResult<K extends OperationId = OperationId> {
  /** A documented status other than the operation's first 2xx (e.g. 503 from readiness). */
  status?: AnswerStatus<K>;
  body?: AnswerOf<K>;
  headers?: Record<string, string>;
}

export type Handler<K extends OperationId = OperationId> = (
  context: HandlerContext<K>,
) => Promise<HandlerResult<K>>;

/** operationId → handler. The registry must match the spec's operations exactly (the compiler and a test check). */
export type HandlerMap = { [K in OperationId]: Handler<K> };

/** The authenticated caller, or a programming error when an oauth2 operation has none. */
export function requireAuth(context: { auth: AuthContext | undefined; operation: Operation }): AuthContext {
  if (!context.auth) throw new Error(`${context.operation.operationId}: no bearer auth context`);
  return context.auth;
}
