/**
 * The account's webhook endpoints: /v1/webhooks (scope `webhooks:admin`). A secret is returned
 * by `create` and `rotateSecret` only, once: store it then, and check deliveries with
 * `verifyWebhook`. Those two calls and `test` are never retried: the service keeps no copy of
 * their answers, so a retry after a lost answer would add a second endpoint, rotate twice or send
 * a second test event.
 */
import { nextCursorOf, pagedItems, searchOf } from './next-page.js';
import type { CallOptions, Transport } from './transport.js';
import type { CreateWebhookInput, UpdateWebhookInput, Webhook, WebhookDelivery, WebhookWithSecret } from './types.js';

export interface WebhookDeliveryQuery {
  /** Page size, 1–1000; default 100. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface WebhookDeliveryPage {
  /** Newest first. */
  deliveries: WebhookDelivery[];
  /** Pass as `cursor` for the next (older) page; undefined on the last page. */
  nextCursor: string | undefined;
}

const pathOf = (id: string) => `/webhooks/${encodeURIComponent(id)}`;

export class Webhooks {
  constructor(private readonly transport: Transport) {}

  /**
   * A new endpoint (at most 20 per account: a 409 past that). `url` must be `https`, unless its
   * host is in the server's WEBHOOK_ALLOWED_HOSTS; an internal address is a 400 saying why.
   * Its `secret` is in this answer only.
   */
  async create(input: CreateWebhookInput, options: CallOptions = {}): Promise<WebhookWithSecret> {
    return (await this.transport.call<WebhookWithSecret>({ method: 'POST', path: '/webhooks', body: input }, { ...options, maxRetries: 0 })).body;
  }

  /** The account's endpoints, oldest first; never a secret. */
  async list(options?: CallOptions): Promise<Webhook[]> {
    return (await this.transport.call<Webhook[]>({ method: 'GET', path: '/webhooks', answer: 'array' }, options)).body;
  }

  async get(id: string, options?: CallOptions): Promise<Webhook> {
    return (await this.transport.call<Webhook>({ method: 'GET', path: pathOf(id) }, options)).body;
  }

  /** Changes what is given; `{ disabled: false }` re-enables an endpoint disabled after five days of failures. */
  async update(id: string, input: UpdateWebhookInput, options?: CallOptions): Promise<Webhook> {
    return (await this.transport.call<Webhook>({ method: 'PATCH', path: pathOf(id), body: input }, options)).body;
  }

  /** Removes the endpoint and drops its pending deliveries. */
  async delete(id: string, options?: CallOptions): Promise<void> {
    await this.transport.call<undefined>({ method: 'DELETE', path: pathOf(id), answer: 'none' }, options);
  }

  /** Sends a `webhook.test` event (data `{ webhookId }`) whatever the endpoint subscribes to; returns its delivery, pending. A disabled endpoint is a 409. */
  async test(id: string, options: CallOptions = {}): Promise<WebhookDelivery> {
    return (await this.transport.call<WebhookDelivery>({ method: 'POST', path: `${pathOf(id)}/test` }, { ...options, maxRetries: 0 })).body;
  }

  /** A new signing secret, in this answer only; for 24 hours deliveries carry a signature by each, so receivers switch without a gap. */
  async rotateSecret(id: string, options: CallOptions = {}): Promise<WebhookWithSecret> {
    return (await this.transport.call<WebhookWithSecret>({ method: 'POST', path: `${pathOf(id)}/rotate-secret` }, { ...options, maxRetries: 0 })).body;
  }

  /**
   * Every delivery to the endpoint of the last 30 days, newest first, fetched a page at a time
   * (`pageSize`, default 100) as the `for await` loop asks; leaving the loop fetches no more.
   */
  async *deliveries(id: string, query: { pageSize?: number } = {}, options?: CallOptions): AsyncGenerator<WebhookDelivery, void, undefined> {
    yield* pagedItems<WebhookDelivery>(this.transport, (cursor) => `${pathOf(id)}/deliveries${searchOf({ limit: query.pageSize, cursor })}`, options);
  }

  /** One page of the endpoint's deliveries, newest first, and the cursor of the next. */
  async deliveriesPage(id: string, query: WebhookDeliveryQuery = {}, options?: CallOptions): Promise<WebhookDeliveryPage> {
    const { body, headers } = await this.transport.call<WebhookDelivery[]>({ method: 'GET', path: `${pathOf(id)}/deliveries${searchOf({ ...query })}`, answer: 'array' }, options);
    return { deliveries: body, nextCursor: nextCursorOf(headers) };
  }
}
