/**
 * Label policies (docs/keys-and-scopes.md, "Protected labels"): a protected label
 * can be moved or removed only by a key with `labels:protected`. `production`
 * is protected unless its policy says otherwise. The evaluation thresholds
 * (minScore, minPassRate, maxAgeDays) are stored and answered but not enforced
 * yet: evaluations come with a later issue.
 */
import { lacksScope, notFound } from '../errors.js';
import type { Actor } from '../storage/change-log.js';
import type { LabelPolicyRepository, LabelPolicyRow } from '../storage/label-policy-repository.js';
import { checkLabelName } from './persona-history.js';
import type { PersonaService } from './persona-service.js';

/** A label's policy, as GET/PUT …/labels/{label}/policy answer it. */
export interface LabelPolicy {
  label: string;
  protected: boolean;
  /** Stored, not enforced yet. */
  minScore: number | null;
  minPassRate: number | null;
  maxAgeDays: number | null;
  /** No policy was set: the default applies. */
  isDefault: boolean;
}

/** What PUT …/policy accepts; `protected` left out keeps the label's current protection. */
export interface LabelPolicyChange {
  protected?: boolean;
  minScore?: number | null;
  minPassRate?: number | null;
  maxAgeDays?: number | null;
}

/** Protected by default, for personas created since label policies exist. */
export const PROTECTED_BY_DEFAULT = new Set(['production']);

function toPolicy(label: string, row: LabelPolicyRow | undefined): LabelPolicy {
  return {
    label,
    protected: row ? row.protected === 1 : PROTECTED_BY_DEFAULT.has(label),
    minScore: row?.min_score ?? null,
    minPassRate: row?.min_pass_rate ?? null,
    maxAgeDays: row?.max_age_days ?? null,
    isDefault: row === undefined,
  };
}

export class LabelPolicies {
  constructor(
    private readonly policies: LabelPolicyRepository,
    private readonly personas: PersonaService,
  ) {}

  async get(accountId: string, personaId: string, label: string): Promise<LabelPolicy> {
    checkLabelName(label, { allowLatest: false });
    await this.personas.get(accountId, personaId);
    return toPolicy(label, await this.policies.find(personaId, label));
  }

  /** Replaces the policy; `protected` left out keeps the label's current protection. */
  async put(actor: Actor, personaId: string, label: string, body: LabelPolicyChange): Promise<LabelPolicy> {
    const current = await this.get(actor.accountId, personaId, label);
    const row: LabelPolicyRow = {
      persona_id: personaId,
      label,
      protected: (body.protected ?? current.protected) ? 1 : 0,
      min_score: body.minScore ?? null,
      min_pass_rate: body.minPassRate ?? null,
      max_age_days: body.maxAgeDays ?? null,
      updated_at: new Date().toISOString(),
    };
    await this.policies.put({ ...actor, at: row.updated_at }, row);
    return toPolicy(label, row);
  }

  /** Back to the default (`production` protected, other labels not). */
  async remove(actor: Actor, personaId: string, label: string): Promise<void> {
    await this.get(actor.accountId, personaId, label);
    if (!(await this.policies.remove({ ...actor, at: new Date().toISOString() }, personaId, label))) {
      throw notFound(`label "${label}" of persona "${personaId}" has no policy`);
    }
  }

  /** Before a label moves or goes: a protected label needs `labels:protected` (another account's persona stays a 404). */
  async requireMayMove(accountId: string, personaId: string, label: string, mayMoveProtected: boolean): Promise<void> {
    if (mayMoveProtected) return;
    checkLabelName(label, { allowLatest: false });
    await this.personas.get(accountId, personaId);
    if (toPolicy(label, await this.policies.find(personaId, label)).protected) throw lacksScope('labels:protected');
  }
}
