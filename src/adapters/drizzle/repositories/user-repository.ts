import { count, eq, sql } from 'drizzle-orm';
import type { NewUser, User, UserRepository } from '../../../domain/ports/user-repository.js';
import type { Database, DbSession } from '../driver/database.js';
import { users } from '../schema/schema.js';

function prepareStatements(db: Database) {
  return {
    byId: db
      .select()
      .from(users)
      .where(eq(users.id, sql.placeholder('id')))
      .prepare('users_by_id'),
    byEmail: db
      .select()
      .from(users)
      .where(eq(users.email, sql.placeholder('email')))
      .prepare('users_by_email'),
    // On every authenticated request: one index lookup, one integer back.
    sessionVersion: db
      .select({ sessionVersion: users.sessionVersion })
      .from(users)
      .where(eq(users.id, sql.placeholder('id')))
      .prepare('users_session_version'),
  };
}

type UserRow = typeof users.$inferSelect;

function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    passwordHash: row.passwordHash,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    sessionVersion: row.sessionVersion,
  };
}

export class DrizzleUserRepository implements UserRepository {
  #statements: ReturnType<typeof prepareStatements> | undefined;

  constructor(private readonly session: DbSession) {}

  get #stmt() {
    return (this.#statements ??= prepareStatements(this.session.db));
  }

  /**
   * One statement: insert, or on the same (lowercased) email replace name and password hash and
   * raise the session version.
   */
  async upsert(user: NewUser): Promise<User> {
    const rows = await this.session.inSavepoint(
      (db) =>
        db
          .insert(users)
          .values({
            id: user.id,
            email: user.email.toLowerCase(),
            name: user.name,
            passwordHash: user.passwordHash,
            createdAt: user.createdAt,
            updatedAt: user.updatedAt,
          })
          .onConflictDoUpdate({
            target: users.email,
            set: {
              name: sql`excluded.name`,
              passwordHash: sql`excluded.password_hash`,
              updatedAt: sql`excluded.updated_at`,
              sessionVersion: sql`${users.sessionVersion} + 1`,
            },
          })
          .returning(),
      { id: user.id },
    );
    return toUser(rows[0]!);
  }

  async get(id: string): Promise<User | null> {
    const rows = await this.session.run(() => this.#stmt.byId.execute({ id }));
    return rows[0] ? toUser(rows[0]) : null;
  }

  async getByEmail(email: string): Promise<User | null> {
    const rows = await this.session.run(() => this.#stmt.byEmail.execute({ email: email.toLowerCase() }));
    return rows[0] ? toUser(rows[0]) : null;
  }

  async sessionVersion(id: string): Promise<number | null> {
    const rows = await this.session.run(() => this.#stmt.sessionVersion.execute({ id }));
    return rows[0]?.sessionVersion ?? null;
  }

  /** One UPDATE: the row lock serialises concurrent calls, each adds one to the committed value. */
  async endSessions(id: string): Promise<number | null> {
    const rows = await this.session.run((db) =>
      db
        .update(users)
        .set({ sessionVersion: sql`${users.sessionVersion} + 1` })
        .where(eq(users.id, id))
        .returning({ sessionVersion: users.sessionVersion }),
    );
    return rows[0]?.sessionVersion ?? null;
  }

  async count(): Promise<number> {
    const rows = await this.session.run((db) => db.select({ n: count() }).from(users));
    return rows[0]?.n ?? 0;
  }
}
