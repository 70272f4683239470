/** Secrets the service generates for itself, created once and shared by every instance. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class SecretRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The stored value, or `generate()`'s when none is stored yet. Instances
   * starting together may each generate one; the primary key keeps the
   * first, and everyone reads that back.
   */
  async getOrCreate(name: string, generate: () => string): Promise<string> {
    await this.db.insertInto('service_secrets').values({ name, value: generate() }).onConflict((oc) => oc.doNothing()).execute();
    const row = await this.db.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
    return row.value;
  }
}
