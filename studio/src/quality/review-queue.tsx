/**
 * The persona's review queue: what its retention policy keeps of live answers, one answer read
 * beside the text it was asked for, resolved, or resolved into a new evaluation sample.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { RetentionPolicy, Review } from '../api/types.js';
import { useScopes } from '../scopes.js';
import { StatusLines } from '../views/status-lines.js';

const KEEP_LABELS: Record<RetentionPolicy['keep'], string> = {
  none: 'Nothing (and delete what was kept)',
  belowMinScore: 'Answers under minScore or with a required finding',
  flagged: 'Those, and answers rated down',
  all: 'Every answer',
};

const describeError = (error: unknown) => {
  if (!(error instanceof ApiError)) throw error;
  return plainError(error);
};

export function ReviewQueue({ api, id }: { api: StudioApi; id: string }) {
  const [reviews, setReviews] = useState<Review[] | undefined>(undefined);
  const [policy, setPolicy] = useState<RetentionPolicy>({ keep: 'none', days: 30 });
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [sampleName, setSampleName] = useState('');
  const [status, setStatus] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const cannotWrite = useScopes().lacking('personas:write');

  const load = async () => {
    try {
      const [open, kept] = await Promise.all([api.reviews(id), api.retention(id)]);
      setReviews(open);
      setPolicy(kept);
      setSelected((current) => (open.some((review) => review.requestId === current) ? current : open[0]?.requestId));
    } catch (error) {
      setProblem(describeError(error));
    }
  };
  useEffect(() => void load(), [id]);

  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      const done = await work();
      await load();
      setStatus(done);
    } catch (error) {
      setProblem(describeError(error));
      // Resolved by someone else meanwhile (409) or gone (404): the list is shown as it is now.
      if (error instanceof ApiError && (error.status === 409 || error.status === 404)) await load();
    } finally {
      setBusy(false);
    }
  };
  const review = reviews?.find((item) => item.requestId === selected);

  return (
    <section aria-labelledby="reviews-heading" class="review-queue">
      <h3 id="reviews-heading">Review queue</h3>
      <form
        class="retention"
        onSubmit={(event) => {
          event.preventDefault();
          void act(async () => {
            await api.setRetention(id, policy);
            return `Keeping ${KEEP_LABELS[policy.keep].toLowerCase()} for ${policy.days} days.`;
          });
        }}
      >
        <div class="field">
          <label for="retention-keep">Keep for review</label>
          <select id="retention-keep" value={policy.keep} onChange={(event) => setPolicy({ ...policy, keep: event.currentTarget.value as RetentionPolicy['keep'] })}>
            {Object.entries(KEEP_LABELS).map(([keep, label]) => (
              <option key={keep} value={keep}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="retention-days">Days kept</label>
          <input id="retention-days" type="number" min={1} max={90} value={policy.days} onInput={(event) => setPolicy({ ...policy, days: Number(event.currentTarget.value) })} />
        </div>
        <button type="submit" class="secondary" disabled={busy || cannotWrite !== undefined} title={cannotWrite}>
          Save retention
        </button>
      </form>
      <StatusLines status={status} problem={problem} />
      {reviews === undefined ? (
        !problem && <p role="status">Loading…</p>
      ) : reviews.length === 0 ? (
        <p class="hint">No open reviews: the answers the policy keeps appear here.</p>
      ) : (
        <div class="review-layout">
          <ul class="review-list" aria-label="Open reviews">
            {reviews.map((item) => (
              <li key={item.requestId}>
                <button type="button" class="secondary" aria-pressed={item.requestId === selected} onClick={() => setSelected(item.requestId)}>
                  {new Date(item.createdAt).toLocaleString()} · version {item.version} · score {item.score}
                  {item.feedback ? ` · rated ${item.feedback.rating}` : ''}
                </button>
              </li>
            ))}
          </ul>
          {review && (
            <article class="review" aria-label={`Review of ${review.requestId}`}>
              <div class="review-pair">
                <figure aria-label="Asked">
                  <figcaption>Asked ({review.endpoint})</figcaption>
                  <p class="review-text">{review.content}</p>
                </figure>
                <figure aria-label="Answered">
                  <figcaption>Answered, score {review.score}</figcaption>
                  <p class="review-text">{review.response}</p>
                </figure>
              </div>
              {review.violations.length > 0 && (
                <ul class="review-findings" aria-label="Findings left in the answer">
                  {review.violations.map((violation, index) => (
                    <li key={index}>
                      {violation.rule} ({violation.severity}): {violation.message}
                    </li>
                  ))}
                </ul>
              )}
              {review.feedback && (
                <p>
                  Rated {review.feedback.rating}
                  {review.feedback.comment ? `: “${review.feedback.comment}”` : ''}
                  {review.feedback.correctedText ? ` Corrected text: “${review.feedback.correctedText}”` : ''}
                </p>
              )}
              <div class="field">
                <label for="review-sample-name">Sample name (optional)</label>
                <input id="review-sample-name" type="text" value={sampleName} onInput={(event) => setSampleName(event.currentTarget.value)} />
              </div>
              <div class="actions">
                <button
                  type="button"
                  disabled={busy || cannotWrite !== undefined}
                  title={cannotWrite}
                  onClick={() =>
                    void act(async () => {
                      const name = sampleName.trim();
                      await api.resolveReview(id, review.requestId, { addSample: name ? { name } : {} });
                      setSampleName('');
                      return 'Resolved; its text is now an evaluation sample.';
                    })
                  }
                >
                  Resolve and add as a sample
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={busy || cannotWrite !== undefined}
                  title={cannotWrite}
                  onClick={() => void act(async () => (await api.resolveReview(id, review.requestId, {}), 'Resolved.'))}
                >
                  Resolve
                </button>
              </div>
            </article>
          )}
        </div>
      )}
    </section>
  );
}
