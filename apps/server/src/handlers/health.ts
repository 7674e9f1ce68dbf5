import { collectOperations } from '@platform-api/validator';
import type { OperationId } from '../api-types.js';
import type { Services } from '../services.js';
import type { HandlerMap } from './types.js';

/** Liveness and readiness for orchestrators, and the root's entry points; all public (security: []). */
export const healthHandlers = {
  async getApiIndex(ctx) {
    const { doc, config } = ctx.services;
    const pathOf = entryPoints(ctx.services);
    return {
      body: {
        title: doc.info.title,
        version: doc.info.version,
        links: {
          ...(config.docsUrl ? { docs: config.docsUrl } : {}),
          health: pathOf('getHealth'),
          readiness: pathOf('getReadiness'),
          token: pathOf('createAccessToken'),
          jwks: pathOf('getJsonWebKeySet'),
        },
      },
    };
  },
  getHealth(ctx) {
    if (ctx.services.isShuttingDown()) return { status: 503, body: { status: 'unavailable' } };
    return { body: { status: 'ok' } };
  },
  async getReadiness(ctx) {
    const ready = await ctx.services.isReady();
    const database = ready ? 'ok' : 'unavailable';
    return ready
      ? { body: { status: 'ok', checks: { database } } }
      : { status: 503, body: { status: 'unavailable', checks: { database } } };
  },
} satisfies Partial<HandlerMap>;

const pathsByDocument = new WeakMap<object, Map<string, string>>();

/** operationId → its path, from the spec the server serves (computed once per document). */
function entryPoints(services: Services): (operationId: OperationId) => string {
  let paths = pathsByDocument.get(services.doc);
  if (!paths) {
    paths = new Map(collectOperations(services.doc as never).map((op) => [op.operationId, op.path]));
    pathsByDocument.set(services.doc, paths);
  }
  const known = paths;
  return (operationId) => {
    const path = known.get(operationId);
    if (path === undefined) throw new Error(`the spec has no operation ${operationId}`);
    return path;
  };
}
