import { Pool, QueryResultRow } from 'pg';

/**
 * Plain SQL on the pool that Prisma's adapter uses too: for the few hot
 * statements (a discovery's claim and result, the catalog's reads) where one
 * hand-written statement replaces several ORM round trips. Statements are
 * unnamed (no server-side prepared statements), which the embedded database's
 * shared session needs.
 */
export class Sql {
  constructor(readonly pool: Pool) {}

  async query<T extends QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const result = await this.pool.query<T>(text, values);
    return result.rows;
  }
}
