/**
 * A view's two live lines: what just happened (polite, always in the page so screen readers
 * announce the change) and what went wrong (an alert, only when there is one).
 */
export function StatusLines({ status, problem }: { status: string | undefined | null; problem: string | undefined | null }) {
  return (
    <>
      <p role="status" class={status ? 'notice' : 'visually-hidden'}>
        {status}
      </p>
      <ProblemLine problem={problem} />
    </>
  );
}

/** What went wrong, as an alert; nothing when nothing did. */
export function ProblemLine({ problem }: { problem: string | undefined | null }) {
  return problem ? (
    <p role="alert" class="error">
      {problem}
    </p>
  ) : null;
}
