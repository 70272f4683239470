/**
 * Webhook endpoints managed over HTTP (scope `webhooks:admin`, docs/webhooks.md). A signing
 * secret exists outside the database's sealed form only in the creation and rotation answers
 * and in the signatures the dispatcher computes.
 */
import { DomainError, invalidRequest, notFound } from '../errors.js';
import { uuidv7 } from '../ids.js';
import type { Clock } from '../clock.js';
import type { WebhookDeliveryRow, WebhookEndpointRow, WebhookRepository } from '../storage/webhook-repository.js';
import { parseEvents } from '../storage/webhook-outbox.js';
import type { AllowedHosts } from './address-policy.js';
import { refusedAddress } from './address-policy.js';
import type { DeliveryStatus } from './delivery-schedule.js';
import { newWebhookSecret } from './signature.js';
import type { SecretSeal } from './secret-seal.js';
import type { EventSubscription } from './webhook-events.js';
import { refusedUrl, type Resolve } from './webhook-sender.js';

/** Endpoints an account may have. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
/** How long a rotated-out secret still signs, next to the new one. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;
export const DELIVERY_PAGE_SIZE = 100;
/** How long a name may take to resolve when an endpoint is saved; an unresolved name is checked again at delivery. */
const SAVE_RESOLVE_MS = 2_000;

export interface WebhookRecord {
  id: string;
  url: string;
  events: EventSubscription[];
  description: string | null;
  createdAt: string;
  disabled: boolean;
}

export interface WebhookWithSecret extends WebhookRecord {
  secret: string;
}

export interface NewWebhook {
  url: string;
  events: EventSubscription[];
  description?: string;
}

export interface WebhookChanges {
  url?: string;
  events?: EventSubscription[];
  description?: string | null;
  disabled?: boolean;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

export interface DeliveryPage {
  deliveries: DeliveryRecord[];
  nextCursor: string | undefined;
  limit: number;
}

const toRecord = (row: WebhookEndpointRow): WebhookRecord => ({
  id: row.id,
  url: row.url,
  events: parseEvents(row.events) as EventSubscription[],
  description: row.description,
  createdAt: row.created_at,
  disabled: row.disabled === 1,
});

const toDelivery = (row: WebhookDeliveryRow): DeliveryRecord => ({
  id: row.id,
  eventId: row.event_id,
  type: row.type,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
  createdAt: row.created_at,
});

const webhookNotFound = (id: string) => notFound(`webhook "${id}" not found`);

export class WebhookService {
  constructor(
    private readonly endpoints: WebhookRepository,
    private readonly seal: SecretSeal,
    private readonly allowedHosts: AllowedHosts,
    private readonly resolve: Resolve,
    private readonly clock: Clock,
  ) {}

  async create(accountId: string, body: NewWebhook): Promise<WebhookWithSecret> {
    await this.checkUrl(body.url);
    const secret = newWebhookSecret();
    const row: WebhookEndpointRow = {
      id: `wh_${uuidv7().replaceAll('-', '')}`,
      account_id: accountId,
      url: body.url,
      events: JSON.stringify(body.events),
      description: body.description ?? null,
      created_at: new Date(this.clock.now()).toISOString(),
      disabled: 0,
      secret: await this.seal.seal(secret),
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
    };
    if (!(await this.endpoints.insertWithinCap(row, MAX_WEBHOOKS_PER_ACCOUNT))) {
      throw new DomainError('conflict', `this account already has ${MAX_WEBHOOKS_PER_ACCOUNT} webhook endpoints, the most it may have; delete one before adding another`);
    }
    return { ...toRecord(row), secret };
  }

  async list(accountId: string): Promise<WebhookRecord[]> {
    return (await this.endpoints.list(accountId)).map(toRecord);
  }

  async get(accountId: string, id: string): Promise<WebhookRecord> {
    return toRecord(await this.row(accountId, id));
  }

  async update(accountId: string, id: string, changes: WebhookChanges): Promise<WebhookRecord> {
    if (changes.url !== undefined) await this.checkUrl(changes.url);
    const updated = await this.endpoints.update(accountId, id, {
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.events === undefined ? {} : { events: JSON.stringify(changes.events) }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.disabled === undefined ? {} : { disabled: changes.disabled ? 1 : 0 }),
    });
    if (updated === undefined) throw webhookNotFound(id);
    return toRecord(updated);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.endpoints.delete(accountId, id))) throw webhookNotFound(id);
  }

  /** A `webhook.test` event for this endpoint alone, whatever it subscribed to. */
  async test(accountId: string, id: string): Promise<DeliveryRecord> {
    const endpoint = await this.row(accountId, id);
    if (endpoint.disabled === 1) throw new DomainError('conflict', `webhook "${id}" is disabled; enable it with PATCH {"disabled": false} first`);
    const delivery = await this.endpoints.sendTest({
      accountId,
      endpointId: id,
      event: { type: 'webhook.test', data: { webhookId: id } },
      at: new Date(this.clock.now()).toISOString(),
    });
    if (delivery === undefined) throw webhookNotFound(id);
    return toDelivery(delivery);
  }

  /** A new secret; the old one keeps signing next to it for ROTATION_GRACE_MS. */
  async rotateSecret(accountId: string, id: string): Promise<WebhookWithSecret> {
    const current = await this.row(accountId, id);
    const secret = newWebhookSecret();
    const updated = await this.endpoints.update(accountId, id, {
      secret: await this.seal.seal(secret),
      previous_secret: current.secret,
      previous_secret_expires_at: new Date(this.clock.now() + ROTATION_GRACE_MS).toISOString(),
    });
    if (updated === undefined) throw webhookNotFound(id);
    return { ...toRecord(updated), secret };
  }

  async deliveries(accountId: string, id: string, query: { limit?: number; cursor?: string }): Promise<DeliveryPage> {
    await this.row(accountId, id);
    const limit = query.limit ?? DELIVERY_PAGE_SIZE;
    const rows = await this.endpoints.listDeliveries(accountId, id, { beforeId: query.cursor, limit: limit + 1 });
    const deliveries = rows.slice(0, limit).map(toDelivery);
    return { deliveries, nextCursor: rows.length > limit ? deliveries[deliveries.length - 1]?.id : undefined, limit };
  }

  private async row(accountId: string, id: string): Promise<WebhookEndpointRow> {
    const row = await this.endpoints.get(accountId, id);
    if (row === undefined) throw webhookNotFound(id);
    return row;
  }

  /**
   * A URL that is refused anyway is refused now, with the reason. A name is resolved once: when
   * it answers with an internal address it is refused; when it does not answer in time it is
   * accepted, and every delivery checks the address it connects to.
   */
  private async checkUrl(text: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalidRequest('url must be an absolute https URL');
    }
    const refusal = refusedUrl(url, this.allowedHosts);
    if (refusal !== undefined) throw invalidRequest(refusal);
    if (this.allowedHosts.has(url.hostname)) return;
    const addresses = await Promise.race([
      this.resolve(url.hostname).catch(() => []),
      new Promise<[]>((resolve) => setTimeout(resolve, SAVE_RESOLVE_MS, []).unref()),
    ]);
    const refused = addresses.map(({ address }) => refusedAddress(url.hostname, address)).find((reason) => reason !== undefined);
    if (refused !== undefined) throw invalidRequest(refused);
  }
}
