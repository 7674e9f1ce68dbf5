import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { buildApp, type PlatformApp } from '../../src/app.js';
import { type CreatedClient, createClient } from '../../src/auth/clients.js';
import { manualClock } from '../../src/clock.js';
import { loadConfig, type ServerConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { Dialect } from '../../src/db/schema.js';
import { apiClient, type Call } from './api.js';
import { freshDatabase } from './databases.js';
import { doc } from './spec-validator.js';

export interface TestServer {
  baseUrl: string;
  call: Call;
  clock: ReturnType<typeof manualClock>;
  platform: PlatformApp;
  /** The database the server runs on (for a dispatcher beside it). */
  database: DatabaseHandle;
  config: ServerConfig;
  /** The client of instance "acme" with every scope. */
  client: CreatedClient;
  /** Gets a token for a client (default: `client`) with the given scopes (default: all of the client's). */
  token(scopes?: string[], client?: CreatedClient): Promise<string>;
  newClient(instance: string, scopes: string[]): Promise<CreatedClient>;
  close(): Promise<void>;
}

/** A real server on a random port over a fresh database of the dialect, with a manual clock. */
export async function startTestServer(
  dialect: Dialect,
  overrides: Partial<ServerConfig> = {},
  options: {
    checkWebhookTarget?: PlatformApp['services']['checkWebhookTarget'];
    logger?: Logger;
    /** A variant of the bundle (a test's own edit of it); default the platform bundle. */
    doc?: typeof doc;
  } = {},
): Promise<TestServer> {
  const fresh = await freshDatabase(dialect);
  const clock = manualClock(Date.UTC(2026, 0, 15, 12, 0, 0));
  const config = loadConfig(
    new Map(),
    {},
    {
      dataDir: fresh.dataDir,
      databaseUrl: fresh.databaseUrl,
      databaseSchema: fresh.databaseSchema,
      logLevel: 'silent',
      bootstrapDevInstance: false,
      deliveryEnabled: false,
      ...overrides,
    },
  );
  const platform = await buildApp({
    config,
    database: fresh.database,
    clock,
    doc: options.doc ?? doc,
    logger: options.logger ?? pino({ level: 'silent' }),
    // Test receivers live on example hosts that do not resolve here: accept them; SSRF has its own test.
    checkWebhookTarget: options.checkWebhookTarget ?? (async () => ({ ok: true })),
  });
  await platform.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (platform.app.server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  platform.services.config.publicUrl = baseUrl;
  const call = apiClient(baseUrl);
  const allScopes = ['user', 'data', 'chat'];
  const client = await createClient(fresh.database.db, clock, {
    instance: 'acme',
    scopes: allScopes,
    name: 'test',
  });

  return {
    baseUrl,
    call,
    clock,
    platform,
    database: fresh.database,
    config,
    client,
    async token(scopes, which = client) {
      const query = scopes ? `&scope=${encodeURIComponent(scopes.join(' '))}` : '';
      const res = await call('GET', `/oauth/token?grant_type=client_credentials${query}`, {
        basic: { id: which.clientId, secret: which.clientSecret },
      });
      if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
      return res.body.access_token as string;
    },
    newClient: (instance, scopes) => createClient(fresh.database.db, clock, { instance, scopes }),
    async close() {
      await platform.app.close();
      await fresh.cleanup();
    },
  };
}
