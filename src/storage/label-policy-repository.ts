/** Label policies (label_policies): one row per persona × label that has one. Callers check the persona is the account's. */
import type { Kysely, Selectable } from 'kysely';
import { type ChangeAuthor, lockPersona, recordEvent } from './change-log.js';
import type { Database, LabelPoliciesTable } from './schema.js';

export type LabelPolicyRow = Selectable<LabelPoliciesTable>;

export class LabelPolicyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(personaId: string, label: string): Promise<LabelPolicyRow | undefined> {
    return this.db.selectFrom('label_policies').selectAll().where('persona_id', '=', personaId).where('label', '=', label).executeTakeFirst();
  }

  forPersona(personaId: string): Promise<LabelPolicyRow[]> {
    return this.db.selectFrom('label_policies').selectAll().where('persona_id', '=', personaId).orderBy('label').execute();
  }

  /**
   * False when the persona is gone. Under the persona's row lock, as label moves are: a move in
   * flight commits first, and a move after reads this policy (persona-history-repository.ts).
   */
  async put(author: ChangeAuthor, row: LabelPolicyRow): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if ((await lockPersona(trx, author.accountId, row.persona_id, undefined)) === undefined) return false;
      await trx
        .insertInto('label_policies')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['persona_id', 'label']).doUpdateSet({
            protected: row.protected,
            min_score: row.min_score,
            min_pass_rate: row.min_pass_rate,
            max_age_days: row.max_age_days,
            updated_at: row.updated_at,
          }),
        )
        .execute();
      await recordEvent(trx, author, { action: 'label.policy.set', personaId: row.persona_id, label: row.label });
      return true;
    });
  }

  /** False when there was no policy to remove. Under the persona's row lock, as `put`. */
  async remove(author: ChangeAuthor, personaId: string, label: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if ((await lockPersona(trx, author.accountId, personaId, undefined)) === undefined) return false;
      const removed = await trx.deleteFrom('label_policies').where('persona_id', '=', personaId).where('label', '=', label).executeTakeFirst();
      if (Number(removed.numDeletedRows) === 0) return false;
      await recordEvent(trx, author, { action: 'label.policy.removed', personaId, label });
      return true;
    });
  }
}
