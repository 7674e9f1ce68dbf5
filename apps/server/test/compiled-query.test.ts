import { afterAll, beforeAll, expect, it } from 'vitest';
import { compiledQuery } from '../src/db/compiled-query.js';
import type { DatabaseHandle } from '../src/db/database.js';
import type { Dialect } from '../src/db/schema.js';
import { describeEachDialect, freshDatabase } from './helpers/databases.js';

describeEachDialect('a query compiled once (%s)', (dialect: Dialect) => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = (await freshDatabase(dialect)).database;
    const { db } = database;
    const instance = await db
      .insertInto('instances')
      .values({ name: 'compiled', domain: 'compiled.example.com', created_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const name of ['Ada', 'Grace', 'Edsger']) {
      await db
        .insertInto('users')
        .values({
          instance_id: instance.id,
          name,
          email: `${name.toLowerCase()}@example.com`,
          role: 'Participant',
          created_at: 0,
          updated_at: 0,
        })
        .execute();
    }
  });
  afterAll(async () => database?.close());

  const usersNamed = compiledQuery((db: DatabaseHandle['db'], name: string, limit: number) =>
    db.selectFrom('users').select(['name', 'email']).where('name', '>=', name).orderBy('name').limit(limit),
  );

  it('answers each call with its own arguments, as the builder would', async () => {
    const { db } = database;
    for (const [name, limit] of [
      ['B', 1],
      ['A', 3],
      ['F', 5],
    ] as const) {
      const built = await db
        .selectFrom('users')
        .select(['name', 'email'])
        .where('name', '>=', name)
        .orderBy('name')
        .limit(limit)
        .execute();
      expect((await usersNamed(db, name, limit)).rows).toEqual(built);
    }
    expect((await usersNamed(db, 'F', 5)).rows.map((row) => row.name)).toEqual(['Grace']);
  });

  it('runs in a transaction, which alone sees its writes until they commit', async () => {
    const { db } = database;
    let outside: Promise<string[]> | undefined;
    await expect(
      db.transaction().execute(async (trx) => {
        await trx
          .insertInto('users')
          .values({
            instance_id: (await trx.selectFrom('instances').select('id').executeTakeFirstOrThrow()).id,
            name: 'Zed',
            email: 'zed@example.com',
            role: 'Participant',
            created_at: 0,
            updated_at: 0,
          })
          .execute();
        expect((await usersNamed(trx, 'Z', 5)).rows.map((row) => row.name)).toEqual(['Zed']);
        // A read outside the transaction meanwhile must not see the write that is then rolled back.
        outside = usersNamed(db, 'Z', 5).then((result) => result.rows.map((row) => row.name));
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await outside).toEqual([]);
    expect((await usersNamed(db, 'Z', 5)).rows).toEqual([]);
  });

  it('refuses a builder that does not pass an argument through as a value', async () => {
    const lowered = compiledQuery((db: DatabaseHandle['db'], name: string) =>
      db.selectFrom('users').select('name').where('name', '=', String(name).toUpperCase()),
    );
    await expect(lowered(database.db, 'ada')).rejects.toThrow(/do not reach the SQL as values/);
  });
});
