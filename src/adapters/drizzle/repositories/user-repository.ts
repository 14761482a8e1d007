import { count, eq, sql } from 'drizzle-orm';
import type { User, UserRepository } from '../../../domain/ports/user-repository.js';
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
  };
}

export class DrizzleUserRepository implements UserRepository {
  #statements: ReturnType<typeof prepareStatements> | undefined;

  constructor(private readonly session: DbSession) {}

  get #stmt() {
    return (this.#statements ??= prepareStatements(this.session.db));
  }

  /** One statement: insert, or on the same (lowercased) email replace name and password hash. */
  async upsert(user: User): Promise<User> {
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

  async count(): Promise<number> {
    const rows = await this.session.run((db) => db.select({ n: count() }).from(users));
    return rows[0]?.n ?? 0;
  }
}
