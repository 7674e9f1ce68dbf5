// What the database holds, in one module that both the code opening it (database.ts) and the code shaping
// it (migrations.ts) import: the dialects, the notification channels and the tables' row types.
import type { ColumnType, Generated } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/** The PostgreSQL NOTIFY channel (and SQLite in-process signal) of new outbox rows. */
export const OUTBOX_CHANNEL = 'platform_outbox_written';

/*
 * Row types of the tables (internal storage shapes, not API shapes). Both dialects store JSON as text,
 * times as epoch-ms numbers and booleans as integers 0/1, so the same Kysely code runs on both.
 */

export interface InstancesTable {
  id: Generated<number>;
  name: string;
  domain: string;
  created_at: number;
}

export interface UsersTable {
  id: Generated<number>;
  instance_id: number;
  name: string;
  email: string;
  role: string;
  role_id: number | null;
  title: string | null;
  alternate_email: string | null;
  phone: string | null;
  location: string | null;
  timezone: string | null;
  locale: string | null;
  /** Decimal digits (up to 18): exact where a 64-bit integer read into JavaScript would not be. */
  employee_number: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface GroupsTable {
  id: Generated<number>;
  instance_id: number;
  name: string;
  is_default: number;
  active: number;
  creator_id: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface GroupMembersTable {
  group_id: number;
  user_id: number;
  created_at: number;
}

export interface DatasetsTable {
  id: string;
  instance_id: number;
  owner_id: number | null;
  name: string;
  description: string | null;
  /** JSON: the dataset schema ({columns:[{type,name}]}). */
  schema_json: string;
  row_count: number;
  pdp_enabled: number;
  /** CSV data rows without the header line; null until data is imported. */
  csv_data: string | null;
  data_updated_at: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface ClientsTable {
  id: string;
  instance_id: number;
  user_id: number;
  name: string;
  description: string | null;
  /** Space-separated scope names. */
  scopes: string;
  /** scrypt$N$r$p$salt$hash (base64url parts). */
  secret_hash: string;
  created_at: number;
}

/** Keys that sign access tokens (JWTs); the newest unretired one signs, every listed one verifies. */
export interface SigningKeysTable {
  /** The JWK `kid`. */
  id: string;
  /** JWS algorithm, e.g. ES256. */
  algorithm: string;
  /** PKCS #8 PEM. */
  private_key: string;
  /** JSON: the public JWK as published at /.well-known/jwks.json. */
  public_jwk: string;
  created_at: number;
  /** Set by `keys rotate`: the key signs no more, and verifies only the tokens it signed until they expire. */
  retired_at: number | null;
}

export interface ChannelsTable {
  id: string;
  instance_id: number;
  parent_id: string | null;
  title: string;
  visibility: string;
  creator_id: number;
  created_at: number;
}

export interface ChannelMembersTable {
  channel_id: string;
  user_id: number;
  joined_at: number;
}

export interface MessagesTable {
  id: string;
  instance_id: number;
  channel_id: string;
  author_user_id: number | null;
  integration_id: string | null;
  author_name: string;
  text: string;
  created_at: number;
}

/**
 * Each channel's latest message time: a message gets the next one (db/message-store.ts), so that times
 * strictly increase within a channel however many instances post to it at once.
 */
export interface ChannelMessageTimesTable {
  channel_id: string;
  last_at: number;
}

export interface IntegrationsTable {
  id: string;
  instance_id: number;
  owner_id: number;
  name: string;
  description: string | null;
  scope: string;
  /** JSON array of channel ids (scope CHANNEL_LIST) or null. */
  channel_ids: string | null;
  /** JSON array of {name, value}. */
  headers: string;
  /** Standard Webhooks secret (whsec_…) when signing is enabled. */
  signing_secret: string | null;
  created_at: number;
}

export interface SubscriptionsTable {
  id: string;
  instance_id: number;
  integration_id: string;
  event_type: string;
  url: string;
  slash_command: string | null;
  /** Set by the dispatcher on 410 Gone; a disabled subscription gets no new events. */
  disabled_at: number | null;
  /** Consecutive failed attempts (the circuit breaker, delivery/breaker.ts); 0 after a success. */
  breaker_failures: ColumnType<number, number | undefined, number>;
  /** While in the future, no attempt is sent (open); past with the threshold reached: half-open. */
  breaker_open_until: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: number;
}

export interface CallbackTokensTable {
  /** SHA-256 (hex) of the x-chat-bot-token value. */
  token_hash: string;
  instance_id: number;
  integration_id: string;
  channel_id: string;
  expires_at: number;
  created_at: number;
}

/** The outbox: one row per (event, subscription); read and updated by the dispatcher. */
export interface EventDeliveriesTable {
  /** uuid; also the `webhook-id` header, stable across retries. */
  id: string;
  instance_id: number;
  integration_id: string;
  subscription_id: string;
  event_type: string;
  url: string;
  /**
   * JSON payload, valid against the spec's webhook schema once the callback token is put in at send time
   * (it is never stored in clear: auth/callback-tokens.ts).
   */
  payload: string;
  /** JSON array of {name, value}: the integration's configured headers, snapshotted. */
  headers: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: number;
  locked_until: number | null;
  locked_by: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  /** When the row became delivered or failed; the sweeper deletes it a retention period later. */
  finished_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface Database {
  instances: InstancesTable;
  users: UsersTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  datasets: DatasetsTable;
  clients: ClientsTable;
  signing_keys: SigningKeysTable;
  channels: ChannelsTable;
  channel_members: ChannelMembersTable;
  messages: MessagesTable;
  channel_message_times: ChannelMessageTimesTable;
  integrations: IntegrationsTable;
  subscriptions: SubscriptionsTable;
  callback_tokens: CallbackTokensTable;
  event_deliveries: EventDeliveriesTable;
}
