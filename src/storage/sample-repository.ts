/** Evaluation samples (eval_sample_sets): one row per persona that has samples. Callers check the persona is the account's. */
import type { Kysely, Selectable } from 'kysely';
import { lockPersona } from './change-log.js';
import type { Database, EvalSampleSetsTable } from './schema.js';

export type SampleSetRow = Selectable<EvalSampleSetsTable>;

export class SampleRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(personaId: string): Promise<SampleSetRow | undefined> {
    return this.db.selectFrom('eval_sample_sets').selectAll().where('persona_id', '=', personaId).executeTakeFirst();
  }

  /**
   * Writes the set if it is still at `fromVersion` (0: none yet), under the persona's row lock
   * so a persona deleted meanwhile leaves no set behind. The new version; undefined when
   * another writer got there first; `persona_gone` when the persona went.
   */
  async replace(accountId: string, personaId: string, fromVersion: number, samples: string, at: string): Promise<number | 'persona_gone' | undefined> {
    return this.db.transaction().execute(async (trx) => {
      if ((await lockPersona(trx, accountId, personaId, undefined)) === undefined) return 'persona_gone';
      const current = await trx.selectFrom('eval_sample_sets').select('version').where('persona_id', '=', personaId).executeTakeFirst();
      if ((current?.version ?? 0) !== fromVersion) return undefined;
      const version = fromVersion + 1;
      if (current) {
        await trx.updateTable('eval_sample_sets').set({ samples, version, updated_at: at }).where('persona_id', '=', personaId).execute();
      } else {
        await trx.insertInto('eval_sample_sets').values({ persona_id: personaId, account_id: accountId, version, samples, updated_at: at }).execute();
      }
      return version;
    });
  }
}
