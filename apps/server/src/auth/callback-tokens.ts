import type { Insertable, Kysely } from 'kysely';
import { compiledQuery } from '../db/compiled-query.js';
import type { CallbackTokensTable, Database } from '../db/schema.js';
import { randomToken, sha256Hex } from './secrets.js';

/*
 * The callback token of an event (`callback.headers["x-chat-bot-token"]`) is minted when the event is sent,
 * not when it is queued: the outbox row keeps the payload without it, and only the token's hash is ever
 * stored. Each attempt gets its own token; all of them are valid for the event's channel until one hour
 * (callbackTtlMs) after the event; the sweeper (delivery/sweeper.ts) deletes them after that. The guard
 * (guard.ts) checks them when a receiver posts back.
 */

export const CALLBACK_TOKEN_HEADER = 'x-chat-bot-token';

/** What a valid callback token lets its bearer do: post to this channel as this integration. */
export interface CallbackGrant {
  instanceId: number;
  integrationId: string;
  channelId: string;
}

/**
 * The grant of a callback token sent for a channel: `unknown` when no such token was minted for that
 * channel, `expired` past its validity.
 */
export async function verifyCallbackToken(
  db: Kysely<Database>,
  token: string,
  channelId: string,
  now: number,
): Promise<CallbackGrant | 'unknown' | 'expired'> {
  const row = await db
    .selectFrom('callback_tokens')
    .select(['instance_id', 'integration_id', 'channel_id', 'expires_at'])
    .where('token_hash', '=', sha256Hex(token))
    .where('channel_id', '=', channelId)
    .executeTakeFirst();
  if (!row) return 'unknown';
  if (row.expires_at <= now) return 'expired';
  return { instanceId: row.instance_id, integrationId: row.integration_id, channelId: row.channel_id };
}

// One per delivery attempt: compiled once (db/compiled-query.ts).
const insertCallbackToken = compiledQuery(
  (
    db: Kysely<Database>,
    tokenHash: string,
    instanceId: number,
    integrationId: string,
    channelId: string,
    expiresAt: number,
    createdAt: number,
  ) =>
    db.insertInto('callback_tokens').values({
      token_hash: tokenHash,
      instance_id: instanceId,
      integration_id: integrationId,
      channel_id: channelId,
      expires_at: expiresAt,
      created_at: createdAt,
    }),
);

export interface CallbackTarget {
  instanceId: number;
  integrationId: string;
  /** When the event happened (the outbox row's creation). */
  eventAt: number;
  callbackTtlMs: number;
  now: number;
}

/** A minted callback token: the payload to send, with the token in it, and the row that stores its hash. */
export interface MintedCallbackToken {
  body: string;
  row: Insertable<CallbackTokensTable>;
}

/** Mints a callback token into the stored payload; nothing is stored yet (insertCallbackTokens). */
export function mintCallbackToken(storedPayload: string, target: CallbackTarget): MintedCallbackToken {
  const payload = JSON.parse(storedPayload) as {
    channel?: { id?: unknown };
    callback?: { url?: unknown; headers?: Record<string, string> };
  };
  const channelId = payload.channel?.id;
  if (typeof channelId !== 'string' || !payload.callback) {
    throw new Error('stored payload has no channel id or callback');
  }
  const token = randomToken(32, 'hex');
  payload.callback.headers = { ...payload.callback.headers, [CALLBACK_TOKEN_HEADER]: token };
  return {
    body: JSON.stringify(payload),
    row: {
      token_hash: sha256Hex(token),
      instance_id: target.instanceId,
      integration_id: target.integrationId,
      channel_id: channelId,
      expires_at: target.eventAt + target.callbackTtlMs,
      created_at: target.now,
    },
  };
}

/** Stores minted tokens' hashes, several in one statement (the dispatcher's attempts of one turn). */
export async function insertCallbackTokens(
  db: Kysely<Database>,
  rows: ReadonlyArray<Insertable<CallbackTokensTable>>,
): Promise<void> {
  const [only] = rows;
  if (!only) return;
  if (rows.length === 1) {
    await insertCallbackToken(
      db,
      only.token_hash,
      only.instance_id,
      only.integration_id,
      only.channel_id,
      only.expires_at,
      only.created_at,
    );
    return;
  }
  await db
    .insertInto('callback_tokens')
    .values([...rows])
    .execute();
}

/** The payload to send: the stored one with a freshly minted callback token in it, stored. */
export async function withCallbackToken(
  db: Kysely<Database>,
  storedPayload: string,
  target: CallbackTarget,
): Promise<string> {
  const { body, row } = mintCallbackToken(storedPayload, target);
  await insertCallbackTokens(db, [row]);
  return body;
}
