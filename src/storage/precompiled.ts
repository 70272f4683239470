import type { Compilable, Kysely, QueryResult } from 'kysely';
import type { Database } from './schema.js';

/**
 * A hot query compiled once; each call only swaps its parameters, in the order
 * they appear in the query. Kysely would otherwise rebuild and recompile the
 * same query tree on every request.
 */
export function precompiled<Row>(query: Compilable<Row>, parameterCount: number) {
  const compiled = query.compile();
  if (compiled.parameters.length !== parameterCount) {
    throw new Error(`precompiled query expects ${compiled.parameters.length} parameters, not ${parameterCount}: ${compiled.sql}`);
  }
  return (db: Kysely<Database>, ...parameters: unknown[]): Promise<QueryResult<Row>> =>
    db.executeQuery<Row>({ ...compiled, parameters });
}
