/**
 * Sends the outbox (docs/webhooks.md, "Delivery"). Every instance runs one: it leases due
 * deliveries (so no other instance sends them meanwhile), signs and sends each, and records
 * the outcome. A lease outlives the receiver's timeout, so a delivery answered 2xx in time is
 * sent once; an instance that dies mid-delivery leaves a lease that lapses, and another sends it.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { AttemptOutcome, ClaimedDelivery, WebhookRepository } from '../storage/webhook-repository.js';
import { outboxWrites } from '../storage/webhook-outbox.js';
import { DISABLE_AFTER_MS, nextAttemptAfter } from './delivery-schedule.js';
import type { SecretSeal } from './secret-seal.js';
import { signatureHeader } from './signature.js';
import type { WebhookSender } from './webhook-sender.js';

export type AttemptKind = 'delivered' | 'retry' | 'failed';

export interface DispatcherOptions {
  retrySchedule: readonly number[];
  timeoutMs: number;
  userAgent: string;
  onError: (error: unknown, message: string) => void;
  /** Each attempt's outcome, for metrics and logs (never the URL: a receiver's URL may hold its own token). */
  onAttempt: (attempt: { outcome: AttemptKind; endpointId: string; eventId: string; attempts: number; error?: string }) => void;
  /** Deliveries this instance sends at once. */
  maxInFlight?: number;
  /** Deliveries to one endpoint this instance sends at once: a slow receiver holds no more. */
  maxPerEndpoint?: number;
  pollMs?: number;
}

/** Time to record an outcome after the receiver's timeout, before another instance may take the delivery. */
const LEASE_MARGIN_MS = 15_000;
/** After a local event write: long enough for its transaction to commit, usually. */
const WAKE_DELAY_MS = 20;

export class WebhookDispatcher {
  private readonly owner = randomUUID();
  private readonly sending = new Set<Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly maxInFlight: number;
  private readonly maxPerEndpoint: number;
  private poller: NodeJS.Timeout | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly wake = () => {
    if (this.closed || this.wakeTimer !== undefined) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      void this.poll();
    }, WAKE_DELAY_MS);
    this.wakeTimer.unref();
  };

  constructor(
    private readonly deliveries: WebhookRepository,
    private readonly sender: WebhookSender,
    private readonly seal: SecretSeal,
    private readonly clock: Clock,
    private readonly options: DispatcherOptions,
  ) {
    this.maxInFlight = options.maxInFlight ?? 16;
    this.maxPerEndpoint = options.maxPerEndpoint ?? 4;
  }

  start(): void {
    this.poller = setInterval(() => void this.poll(), this.options.pollMs ?? 1_000);
    this.poller.unref();
    outboxWrites.on('written', this.wake);
    this.wake();
  }

  /** Stops taking deliveries and waits for those being sent (each bounded by the timeout). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poller);
    clearTimeout(this.wakeTimer);
    outboxWrites.off('written', this.wake);
    await this.polling;
    await Promise.all(this.sending);
    this.sender.close();
  }

  /** One look for due deliveries, and their sending to its end (tests drive time with the clock, then call this). */
  async drain(): Promise<void> {
    await this.poll();
    await Promise.all(this.sending);
  }

  /** Polls once at a time; a wake during a poll polls again after it. */
  private poll(): Promise<void> {
    if (this.polling) {
      this.again = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.again = false;
        try {
          await this.claimDue();
        } catch (error) {
          this.options.onError(error, 'webhook deliveries could not be read');
        }
      } while (this.again && !this.closed);
    })().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private async claimDue(): Promise<void> {
    if (this.closed) return;
    const now = this.clock.now();
    const nowIso = new Date(now).toISOString();
    const leaseUntil = new Date(now + this.options.timeoutMs + LEASE_MARGIN_MS).toISOString();
    for (const endpointId of await this.deliveries.dueEndpoints(nowIso, 100)) {
      const free = Math.min(this.maxInFlight - this.sending.size, this.maxPerEndpoint - (this.perEndpoint.get(endpointId) ?? 0));
      if (this.maxInFlight - this.sending.size <= 0) return;
      if (free <= 0) continue;
      for (const delivery of await this.deliveries.claim(endpointId, nowIso, leaseUntil, this.owner, free)) this.track(delivery);
    }
  }

  private track(delivery: ClaimedDelivery): void {
    this.perEndpoint.set(delivery.endpointId, (this.perEndpoint.get(delivery.endpointId) ?? 0) + 1);
    const sent = this.send(delivery)
      .catch((error: unknown) => this.options.onError(error, 'a webhook delivery could not be recorded; it is tried again when its lease lapses'))
      .finally(() => {
        this.sending.delete(sent);
        const left = (this.perEndpoint.get(delivery.endpointId) ?? 1) - 1;
        if (left === 0) this.perEndpoint.delete(delivery.endpointId);
        else this.perEndpoint.set(delivery.endpointId, left);
        // A slot is free: anything waiting for one is due now.
        this.wake();
      });
    this.sending.add(sent);
  }

  private async send(delivery: ClaimedDelivery): Promise<void> {
    const now = this.clock.now();
    const secrets = [await this.seal.open(delivery.secret)];
    if (delivery.previousSecret !== null && delivery.previousSecretExpiresAt !== null && Date.parse(delivery.previousSecretExpiresAt) > now) {
      secrets.push(await this.seal.open(delivery.previousSecret));
    }
    const timestamp = Math.floor(now / 1000);
    const result = await this.sender.send({
      url: delivery.url,
      body: delivery.body,
      headers: {
        'content-type': 'application/json',
        'user-agent': this.options.userAgent,
        'webhook-id': delivery.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, delivery.eventId, timestamp, delivery.body),
      },
    });
    const at = this.clock.now();
    const outcome: AttemptOutcome = result.delivered
      ? { delivered: true, statusCode: result.statusCode, at: new Date(at).toISOString() }
      : {
          delivered: false,
          statusCode: result.statusCode,
          error: result.error,
          at: new Date(at).toISOString(),
          nextAttemptAt: toIso(nextAttemptAfter(this.options.retrySchedule, delivery.attempts + 1, at)),
          disableIfFailingSince: new Date(at - DISABLE_AFTER_MS).toISOString(),
        };
    await this.deliveries.recordAttempt(delivery, this.owner, outcome);
    this.options.onAttempt({
      outcome: outcome.delivered ? 'delivered' : outcome.nextAttemptAt === undefined ? 'failed' : 'retry',
      endpointId: delivery.endpointId,
      eventId: delivery.eventId,
      attempts: delivery.attempts + 1,
      ...(outcome.delivered ? {} : { error: outcome.error }),
    });
  }
}

const toIso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
