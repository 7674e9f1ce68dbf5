import { collectOperations, loadBundle, type Operation } from '@platform-api/validator';
import type { OpenApiDocument } from './api-types.js';

/*
 * The bundled platform description (spec/dist/platform.openapi.json, full, with x-internal operations),
 * read through @platform-api/validator, the one model of the spec: everything the server knows about
 * routes, parameters, schemas, status codes, content types and scopes comes from there.
 */

export function loadPlatformSpec(): OpenApiDocument {
  return loadBundle('platform');
}

/** The operations the server serves (its `paths`); each must document the 2xx it answers with. */
export function servedOperations(doc: OpenApiDocument): Operation[] {
  const operations = collectOperations(doc as never).filter((operation) => operation.kind === 'path');
  for (const operation of operations) {
    if (operation.successStatus === undefined)
      throw new Error(`${operation.operationId} documents no 2xx response`);
  }
  return operations;
}

/** The scopes the oauth2 scheme declares (client-credentials flow). */
export function declaredScopes(doc: OpenApiDocument): string[] {
  const scheme = doc.components?.securitySchemes?.oauth2;
  return Object.keys(scheme?.flows?.clientCredentials?.scopes ?? {});
}

/** `/v1/users/{id}` → `/v1/users/:id` (Fastify's syntax). */
export function toFastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
