/**
 * What was sent to one endpoint, newest first: each event's status, attempts and the last
 * attempt's outcome, a page at a time ("Load more" follows the `Link` header). While a delivery
 * is due within the minute the first page is read again every few seconds, so a test event is
 * seen arriving; later retries wait for "Refresh".
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { WebhookDelivery } from '../api/webhooks.js';

const REFRESH_MS = 2_000;
const SOON_MS = 60_000;

interface Loaded {
  deliveries: WebhookDelivery[];
  next: string | undefined;
  /** More than the first page was read: a refresh then merges rather than replaces. */
  more: boolean;
}

const dueSoon = (delivery: WebhookDelivery) =>
  delivery.status === 'pending' && (delivery.nextAttemptAt === null || Date.parse(delivery.nextAttemptAt) - Date.now() < SOON_MS);

function When({ at }: { at: string | null }) {
  return at === null ? <>–</> : <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

interface DeliveriesProps {
  api: StudioApi;
  webhookId: string;
  /** Changed by whoever queued a delivery (a test event): the list is read again. */
  generation: number;
}

export function Deliveries({ api, webhookId, generation }: DeliveriesProps) {
  const [loaded, setLoaded] = useState<Loaded | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const table = useRef<HTMLDivElement>(null);
  // Each delivery's status when last shown (undefined before the first read), to announce what changed since.
  const shown = useRef<Map<string, WebhookDelivery['status']> | undefined>(undefined);
  const [announcement, setAnnouncement] = useState('');

  const failed = (error: unknown) => {
    if (!(error instanceof ApiError)) throw error;
    setProblem(plainError(error));
  };
  const refresh = async () => {
    try {
      const page = await api.webhooks.deliveries(webhookId);
      setProblem(undefined);
      setLoaded((current) => {
        if (!current?.more) return { ...page, more: false };
        const fresh = new Set(page.deliveries.map((delivery) => delivery.id));
        return { ...current, deliveries: [...page.deliveries, ...current.deliveries.filter((delivery) => !fresh.has(delivery.id))] };
      });
    } catch (error) {
      failed(error);
    }
  };
  const loadMore = async () => {
    if (!loaded?.next || busy) return;
    setBusy(true);
    try {
      const page = await api.webhooks.deliveries(webhookId, loaded.next);
      const seen = new Set(loaded.deliveries.map((delivery) => delivery.id));
      setLoaded({ deliveries: [...loaded.deliveries, ...page.deliveries.filter((delivery) => !seen.has(delivery.id))], next: page.next, more: true });
      // The last page read: the button goes, so keyboard focus goes to the table rather than the page's start.
      if (!page.next) table.current?.focus();
    } catch (error) {
      failed(error);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => void refresh(), [webhookId, generation]);
  // A status pill changing says nothing to a screen reader: what arrived or changed is also said in words.
  useEffect(() => {
    if (!loaded) return;
    const before = shown.current;
    shown.current = new Map(loaded.deliveries.map((delivery) => [delivery.id, delivery.status]));
    if (!before) return;
    const changed = loaded.deliveries.filter((delivery) => before.get(delivery.id) !== delivery.status);
    if (changed.length > 0) setAnnouncement(changed.map(({ type, status, lastError }) => `${type} ${status}${status === 'failed' && lastError ? `: ${lastError}` : ''}`).join('; '));
  }, [loaded]);
  const waiting = loaded?.deliveries.some(dueSoon) ?? false;
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(() => void refresh(), REFRESH_MS);
    return () => clearTimeout(timer);
  }, [loaded, waiting]);

  return (
    <section aria-labelledby="deliveries-heading" class="deliveries">
      <div class="section-header">
        <h3 id="deliveries-heading">Deliveries</h3>
        <button type="button" class="secondary" onClick={() => void refresh()}>
          Refresh
        </button>
      </div>
      <p class="hint">
        One row per event sent here, newest first; kept 30 days. A failed attempt is retried with growing waits before the delivery counts as failed.
      </p>
      <p role="status" class="visually-hidden" data-testid="deliveries-announcement">
        {announcement}
      </p>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      {loaded === undefined ? (
        !problem && <p role="status">Loading…</p>
      ) : loaded.deliveries.length === 0 ? (
        <p class="notice">Nothing sent yet. “Send test event” sends one now.</p>
      ) : (
        <>
          {/* Focusable, so a keyboard can scroll the table sideways where it is wider than the screen. */}
          <div class="table-scroll" ref={table} tabIndex={0} role="region" aria-label="Deliveries table">
            <table class="deliveries-table">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last status</th>
                  <th scope="col">Last error</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {loaded.deliveries.map((delivery) => (
                  <tr key={delivery.id} data-delivery={delivery.id}>
                    <td data-label="Event">
                      {/* One box: on a phone the cell is a row of its label and this. */}
                      <div>
                        <code>{delivery.type}</code>
                        <div class="hint">
                          <code>{delivery.eventId}</code>
                        </div>
                      </div>
                    </td>
                    <td data-label="Status">
                      <span class={`pill pill-${delivery.status}`}>{delivery.status}</span>
                    </td>
                    <td data-label="Attempts">{delivery.attempts}</td>
                    <td data-label="Last status">{delivery.lastStatusCode ?? '–'}</td>
                    <td class="last-error" data-label="Last error">{delivery.lastError ?? '–'}</td>
                    <td data-label="Next attempt">
                      <When at={delivery.nextAttemptAt} />
                    </td>
                    <td data-label="Created">
                      <When at={delivery.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {loaded.next && (
            <button type="button" class="secondary" aria-busy={busy ? 'true' : undefined} onClick={() => void loadMore()}>
              Load more
            </button>
          )}
        </>
      )}
    </section>
  );
}
