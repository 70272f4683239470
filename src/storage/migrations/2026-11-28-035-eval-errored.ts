import type { Kysely, Migration } from 'kysely';

/**
 * Issue 34: a run's summary counts its errored samples (`errored`), and a run with
 * any meets no label gate (docs/evaluations.md, "Gated labels"). Runs stored before
 * get the count from their stored results, so every summary answers it and an old
 * run that lost samples does not pass a gate either. Read a page of runs at a time:
 * the table may be large, and nothing else in it changes.
 */
const PAGE = 500;

interface Tables {
  eval_runs: { id: string; summary: string };
  eval_results: { eval_id: string; result: string };
}

async function rewriteSummaries(db: Kysely<Tables>, rewrite: (summary: Record<string, unknown>, errored: number) => void): Promise<void> {
  for (let after = ''; ; ) {
    const runs = await db.selectFrom('eval_runs').select(['id', 'summary']).where('id', '>', after).orderBy('id').limit(PAGE).execute();
    if (runs.length === 0) return;
    // An errored result is the only one with an `error` object; the text filter only narrows what is parsed.
    const candidates = await db
      .selectFrom('eval_results')
      .select(['eval_id', 'result'])
      .where('eval_id', 'in', runs.map((run) => run.id))
      .where('result', 'like', '%"error":{%')
      .execute();
    const errored = new Map<string, number>();
    for (const row of candidates) {
      if ((JSON.parse(row.result) as { error?: unknown }).error !== undefined) errored.set(row.eval_id, (errored.get(row.eval_id) ?? 0) + 1);
    }
    for (const run of runs) {
      const summary = JSON.parse(run.summary) as Record<string, unknown>;
      rewrite(summary, errored.get(run.id) ?? 0);
      await db.updateTable('eval_runs').set({ summary: JSON.stringify(summary) }).where('id', '=', run.id).execute();
    }
    after = runs[runs.length - 1]!.id;
  }
}

export const evalErrored: Migration = {
  async up(db: Kysely<unknown>) {
    await rewriteSummaries(db as Kysely<Tables>, (summary, errored) => void (summary.errored = errored));
  },
  async down(db: Kysely<unknown>) {
    await rewriteSummaries(db as Kysely<Tables>, (summary) => void delete summary.errored);
  },
};
