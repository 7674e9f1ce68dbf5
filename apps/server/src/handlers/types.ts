import type { Operation } from '@platform-api/validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnswerOf, AnswerStatus, BodyOf, OperationId, PathOf, QueryOf } from '../api-types.js';
import type { CallbackGrant } from '../auth/callback-tokens.js';
import type { AuthContext, AuthenticatedClient } from '../auth/tokens.js';
import type { Services } from '../services.js';

/*
 * Handler types derived from the spec's generated types (api-types.ts): each handler gets the
 * path/query/body types of its operation and must answer with one of its documented bodies.
 */

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
  callback: CallbackGrant | undefined;
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

/** A handler that needs no I/O may answer synchronously (no promise per request: the health check). */
export type Handler<K extends OperationId = OperationId> = (
  context: HandlerContext<K>,
) => HandlerResult<K> | Promise<HandlerResult<K>>;

/** operationId → handler. The registry must match the spec's operations exactly (the compiler and a test check). */
export type HandlerMap = { [K in OperationId]: Handler<K> };

/** The authenticated caller, or a programming error when an oauth2 operation has none. */
export function requireAuth(context: { auth: AuthContext | undefined; operation: Operation }): AuthContext {
  if (!context.auth) throw new Error(`${context.operation.operationId}: no bearer auth context`);
  return context.auth;
}
