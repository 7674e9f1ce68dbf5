import type { HandlerMap } from './types.js';

/** Liveness and readiness for orchestrators; both public (security: []). */
export const healthHandlers = {
  async getHealth(ctx) {
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
