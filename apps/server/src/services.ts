import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { OpenApiDocument } from './api-types.js';
import type { TokenSettings } from './auth/tokens.js';
import type { Clock } from './clock.js';
import type { ServerConfig } from './config.js';
import type { StorageHealth } from './db/faults.js';
import type { MessageStore } from './db/message-store.js';
import type { Database } from './db/schema.js';

/** What every handler can use. One instance per app (app.ts builds it). */
export interface Services {
  db: Kysely<Database>;
  /** Chat messages as they are posted, each with its events and the channel's next time. */
  messages: MessageStore;
  clock: Clock;
  config: ServerConfig;
  doc: OpenApiDocument;
  /** The bundle's schemas, compiled as request bodies are (no coercion): for checks beyond a body's schema. */
  schemas: Ajv2020;
  logger: Logger;
  /** Signing keys and the live-client cache behind access tokens. */
  tokens: TokenSettings;
  /** SSRF check of a webhook URL at subscription time (src/delivery/ssrf.ts). */
  checkWebhookTarget(url: string, allowList: string[]): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Storage faults seen (db/faults.ts): an episode lasts until the database takes a write again. */
  storage: StorageHealth;
  /** False while shutting down, when the database is unreachable, or during a storage fault episode. */
  isReady(): Promise<boolean>;
  isShuttingDown(): boolean;
}
