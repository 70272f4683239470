/** Secrets the service generates for itself, created once and shared by every instance. */
import { randomBytes } from 'node:crypto';
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

/**
 * A 32-byte key of the deployment's own (for HMACs), generated once, shared by every
 * instance through the database, and read once per process; a failed read is not
 * remembered, so the next use tries the database again.
 */
export class ServiceSecret {
  private value: Promise<Buffer> | undefined;

  constructor(
    private readonly secrets: SecretRepository,
    private readonly name: string,
  ) {}

  get(): Promise<Buffer> {
    this.value ??= this.secrets
      .getOrCreate(this.name, () => randomBytes(32).toString('base64url'))
      .then((stored) => Buffer.from(stored, 'base64url'))
      .catch((error: unknown) => {
        this.value = undefined;
        throw error;
      });
    return this.value;
  }
}
