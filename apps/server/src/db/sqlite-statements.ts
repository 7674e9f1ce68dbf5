// How SQLite runs the server's queries fast: each SQL text is prepared once and kept, and LIMIT/OFFSET are
// compiled so that a prepared statement stays valid whatever values they are bound to.
import type SQLite from 'better-sqlite3';
import {
  type DatabaseConnection,
  type LimitNode,
  type OffsetNode,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  SqliteQueryCompiler,
} from 'kysely';

/**
 * SQLite recompiles a statement whose LIMIT or OFFSET is a bound parameter each time that parameter is bound
 * (its planner reads the value, so a new one may change the plan), and better-sqlite3 binds on every run:
 * measured on SQLite 3.51, `… where id = ? limit ?` took 5.4–6.9 µs a run against 2.3 µs without the limit,
 * and the e-mail check and every list paid it on each request. Behind a cast the planner does not read the
 * value: the statement is compiled once and the limit still applies.
 */
class PreparedOnceSqliteCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit cast(');
    this.visitNode(node.limit);
    this.append(' as integer)');
  }

  protected override visitOffset(node: OffsetNode): void {
    this.append('offset cast(');
    this.visitNode(node.offset);
    this.append(' as integer)');
  }
}

/**
 * SQLite rolls a transaction back by itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM,
 * SQLITE_BUSY): Kysely's `rollback` after it then fails with "cannot rollback - no transaction is active",
 * and that error replaced the real one (a full disk was logged as a rollback problem).
 */
class AutoRollbackAwareSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly file: Pick<SQLite.Database, 'inTransaction'>,
  ) {
    super(config);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.file.inTransaction) await super.rollbackTransaction(connection);
  }
}

export class PreparedOnceSqliteDialect extends SqliteDialect {
  constructor(
    private readonly sqliteConfig: SqliteDialectConfig,
    private readonly file: Pick<SQLite.Database, 'inTransaction'>,
  ) {
    super(sqliteConfig);
  }

  override createDriver() {
    return new AutoRollbackAwareSqliteDriver(this.sqliteConfig, this.file);
  }

  override createQueryCompiler() {
    return new PreparedOnceSqliteCompiler();
  }
}

/** Past it, the statement cache starts afresh (the server's queries are a few hundred distinct texts). */
const MAX_CACHED_STATEMENTS = 2000;

/**
 * The database as Kysely's SQLite dialect sees it, with each SQL text prepared once: Kysely prepares
 * every query anew, and preparing costs more than running a point query. better-sqlite3 runs statements
 * synchronously (`all`/`run`; Kysely's `stream` is not used here), so one statement is never busy when
 * reused, and SQLite re-prepares a statement by itself when the schema changes.
 */
export function withStatementCache(file: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => file.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
        statement = file.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}
