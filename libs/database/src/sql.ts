import { Pool, QueryResultRow } from 'pg';

/**
 * Plain SQL on the pool that Prisma's adapter uses too: for the few hot
 * statements (a discovery's claim and result, the catalog's reads) where one
 * hand-written statement replaces several ORM round trips.
 *
 * A statement given a name is prepared once per connection and then only
 * executed: PostgreSQL neither parses nor plans it again, which is most of
 * what the short ones cost (a discovery's claim costs half as much). Names
 * are used only when `prepared` is set: never on the embedded database (its
 * connections share one session), and not behind a pooling proxy that cannot
 * keep prepared statements (DATABASE_PREPARED_STATEMENTS=false).
 */
export class Sql {
  constructor(
    readonly pool: Pool,
    readonly prepared = false,
  ) {}

  /** `name`: the statement's name when prepared, one per text (`discovery.claim`, say). */
  async query<T extends QueryResultRow>(text: string, values: unknown[] = [], name?: string): Promise<T[]> {
    const result = name && this.prepared ? await this.pool.query<T>({ name, text, values }) : await this.pool.query<T>(text, values);
    return result.rows;
  }
}
