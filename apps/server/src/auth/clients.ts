import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DatabaseHandle } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { newUserRow } from '../user-rows.js';
import { CLIENT_REVOKED_CHANNEL } from './live-clients.js';
import { hashSecret, randomToken } from './secrets.js';

/*
 * Instances and API clients: a client belongs to an instance and to the
 * user it acts as; it has a name, a description and scopes. Its secret is shown once and stored hashed.
 */

export interface InstanceRecord {
  id: number;
  name: string;
  domain: string;
}

export interface ClientInfo {
  clientId: string;
  instance: string;
  userId: number;
  name: string;
  description: string | null;
  scopes: string[];
  createdAt: string;
}

export interface CreatedClient extends ClientInfo {
  clientSecret: string;
}

/** The organisation domain of an instance (events carry it as organization.domain). */
export function instanceDomain(name: string): string {
  return `${name}.example.com`;
}

/** Finds the instance by name, or creates it together with its first Admin user. */
export async function ensureInstance(
  db: Kysely<Database>,
  clock: Clock,
  name: string,
): Promise<InstanceRecord> {
  const existing = await db
    .selectFrom('instances')
    .select(['id', 'name', 'domain'])
    .where('name', '=', name)
    .executeTakeFirst();
  if (existing) return existing;
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    const domain = instanceDomain(name);
    const instance = await trx
      .insertInto('instances')
      .values({ name, domain, created_at: now })
      .returning(['id', 'name', 'domain'])
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('users')
      .values(
        newUserRow(
          {
            instanceId: instance.id,
            name: 'Admin',
            email: `admin@${domain}`,
            role: 'Admin',
            title: 'Administrator',
          },
          now,
        ),
      )
      .execute();
    return instance;
  });
}

/** The instance's first live Admin user: the default owner of new clients. */
async function defaultAdmin(db: Kysely<Database>, instanceId: number): Promise<number> {
  const admin = await db
    .selectFrom('users')
    .select('id')
    .where('instance_id', '=', instanceId)
    .where('role', '=', 'Admin')
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .executeTakeFirst();
  if (!admin) throw new Error('the instance has no Admin user to own the client; pass --user-id');
  return admin.id;
}

export async function createClient(
  db: Kysely<Database>,
  clock: Clock,
  options: { instance: string; scopes: string[]; name?: string; description?: string; userId?: number },
): Promise<CreatedClient> {
  const instance = await ensureInstance(db, clock, options.instance);
  let userId = options.userId;
  if (userId !== undefined) {
    const user = await db
      .selectFrom('users')
      .select('id')
      .where('id', '=', userId)
      .where('instance_id', '=', instance.id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!user) throw new Error(`user ${userId} does not exist in instance ${instance.name}`);
  } else {
    userId = await defaultAdmin(db, instance.id);
  }
  const clientId = randomUUID();
  const clientSecret = randomToken(32);
  const now = clock.now();
  const name = options.name ?? 'API client';
  await db
    .insertInto('clients')
    .values({
      id: clientId,
      instance_id: instance.id,
      user_id: userId,
      name,
      description: options.description ?? null,
      scopes: options.scopes.join(' '),
      secret_hash: await hashSecret(clientSecret),
      created_at: now,
    })
    .execute();
  return {
    clientId,
    clientSecret,
    instance: instance.name,
    userId,
    name,
    description: options.description ?? null,
    scopes: options.scopes,
    createdAt: new Date(now).toISOString(),
  };
}

export async function listClients(db: Kysely<Database>, instance?: string): Promise<ClientInfo[]> {
  let query = db
    .selectFrom('clients')
    .innerJoin('instances', 'instances.id', 'clients.instance_id')
    .select([
      'clients.id',
      'instances.name as instance',
      'clients.user_id',
      'clients.name',
      'clients.description',
      'clients.scopes',
      'clients.created_at',
    ])
    .orderBy('clients.created_at');
  if (instance) query = query.where('instances.name', '=', instance);
  const rows = await query.execute();
  return rows.map((row) => ({
    clientId: row.id,
    instance: row.instance,
    userId: row.user_id,
    name: row.name,
    description: row.description,
    scopes: row.scopes.split(' ').filter(Boolean),
    createdAt: new Date(row.created_at).toISOString(),
  }));
}

/**
 * Deletes a client, which revokes every token issued to it: a token is accepted only while its client
 * exists, and every server instance hears of the deletion when it commits (live-clients.ts). Returns false
 * when no such client exists.
 */
export async function deleteClient(database: DatabaseHandle, clientId: string): Promise<boolean> {
  return database.db.transaction().execute(async (trx) => {
    const result = await trx.deleteFrom('clients').where('id', '=', clientId).executeTakeFirst();
    const deleted = Number(result.numDeletedRows) > 0;
    if (deleted) await database.changes.notify(trx, CLIENT_REVOKED_CHANNEL, clientId);
    return deleted;
  });
}

/**
 * First start with an empty database: creates the development instance, its Admin user and a client
 * with every scope. Returns the new client (whose secret the caller prints once), or undefined when the
 * database already had an instance.
 */
export async function bootstrapDevInstance(
  db: Kysely<Database>,
  clock: Clock,
  instanceName: string,
  allScopes: string[],
): Promise<CreatedClient | undefined> {
  const hasInstance = async () =>
    (await db.selectFrom('instances').select('id').limit(1).executeTakeFirst()) !== undefined;
  if (await hasInstance()) return undefined;
  try {
    return await createClient(db, clock, {
      instance: instanceName,
      scopes: allScopes,
      name: 'Development client',
      description: 'Created on first start; delete it with `platform-server clients delete <id>`.',
    });
  } catch (error) {
    // Several servers started at once on one empty PostgreSQL database: one of them bootstrapped it.
    if (await hasInstance()) return undefined;
    throw error;
  }
}
