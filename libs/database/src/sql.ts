import { Pool, PoolClient, QueryResultRow } from 'pg';

/**
 * How statements given a name are prepared: not at all; once per connection (PostgreSQL); or, on the
 * embedded database whose connections share one session, once per pool client under a name of that client's
 * own (two clients preparing the same name in one session would collide).
 */
export type PreparedStatements = 'off' | 'per-connection' | 'shared-session';

/**
 * Plain SQL on the pool that Prisma's adapter uses too: for the few hot
 * statements (a discovery's claim and result, the catalog's reads) where one
 * hand-written statement replaces several ORM round trips.
 *
 * A statement given a name is prepared once and then only executed:
 * PostgreSQL neither parses nor plans it again, which is most of what the
 * short ones cost (a discovery's claim costs half as much). Not behind a
 * pooling proxy that cannot keep prepared statements
 * (DATABASE_PREPARED_STATEMENTS=false).
 */
/** A statement inside Sql.transaction(); `name` as for Sql.query(). */
export type TransactionQuery = <R extends QueryResultRow>(text: string, values?: unknown[], name?: string) => Promise<R[]>;

export class Sql {
  private readonly clientIds = new WeakMap<PoolClient, number>();
  private nextClientId = 1;

  constructor(
    readonly pool: Pool,
    readonly prepared: PreparedStatements = 'off',
  ) {}

  /** `name`: the statement's name when prepared, one per text (`discovery.claim`, say). */
  async query<T extends QueryResultRow>(text: string, values: unknown[] = [], name?: string): Promise<T[]> {
    if (!name || this.prepared === 'off') return (await this.pool.query<T>(text, values)).rows;
    if (this.prepared === 'per-connection') return (await this.pool.query<T>({ name, text, values })).rows;
    const client = await this.pool.connect();
    try {
      return await this.onClient<T>(client, text, values, name);
    } finally {
      client.release();
    }
  }

  private async onClient<T extends QueryResultRow>(client: PoolClient, text: string, values: unknown[], name?: string): Promise<T[]> {
    if (!name || this.prepared === 'off') return (await client.query<T>(text, values)).rows;
    if (this.prepared === 'per-connection') return (await client.query<T>({ name, text, values })).rows;
    let id = this.clientIds.get(client);
    if (id === undefined) {
      id = this.nextClientId++;
      this.clientIds.set(client, id);
    }
    return (await client.query<T>({ name: `${name}#${id}`, text, values })).rows;
  }

  /**
   * Runs `work` in one transaction on one connection of the pool: committed when it resolves, rolled back
   * when it throws. For the few writes that must lock something first (a tenant's quota) and then read
   * what the lock protects with a fresh snapshot (READ COMMITTED takes one per statement).
   */
  async transaction<T>(work: (query: TransactionQuery) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(<R extends QueryResultRow>(text: string, values: unknown[] = [], name?: string) => this.onClient<R>(client, text, values, name));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }
}
