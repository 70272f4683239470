/**
 * /v1/webhooks (scope webhooks:admin): endpoints, their signing secret (in the answers of create
 * and rotate-secret only), test events and the deliveries sent to each.
 */
import type { components, paths } from '../../../sdk/src/generated/openapi.js';
import type { Send } from './send.js';

export type Webhook = components['schemas']['Webhook'];
/** As created or rotated: with the signing secret, which no other answer holds. */
export type WebhookWithSecret = components['schemas']['WebhookWithSecret'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type CreateWebhookInput = paths['/v1/webhooks']['post']['requestBody']['content']['application/json'];
export type UpdateWebhookInput = paths['/v1/webhooks/{id}']['patch']['requestBody']['content']['application/json'];
export type WebhookSubscription = Webhook['events'][number];


export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  /** The next page's path (from the `Link` header, without `/v1`); undefined on the last page. */
  next: string | undefined;
}

/** Deliveries read at a time: enough to see the latest, short enough that "Load more" matters. */
export const DELIVERY_PAGE_SIZE = 20;

const webhookPath = (id: string) => `/webhooks/${encodeURIComponent(id)}`;

/** `</v1/webhooks/…/deliveries?limit=N&cursor=…>; rel="next"`, as the service writes it. */
const nextPathOf = (link: string | null) => /<\/v1(\/[^>]*)>;\s*rel="next"/.exec(link ?? '')?.[1];

export class WebhooksApi {
  constructor(private readonly send: Send) {}

  /** Oldest first. */
  async list(): Promise<Webhook[]> {
    return (await this.send('GET', '/webhooks')).json() as Promise<Webhook[]>;
  }

  async get(id: string): Promise<Webhook> {
    return (await this.send('GET', webhookPath(id))).json() as Promise<Webhook>;
  }

  /** A 400 ApiError with the reason when the URL is refused (scheme, or an internal address). */
  async create(input: CreateWebhookInput): Promise<WebhookWithSecret> {
    return (await this.send('POST', '/webhooks', { body: input })).json() as Promise<WebhookWithSecret>;
  }

  async update(id: string, changes: UpdateWebhookInput): Promise<Webhook> {
    return (await this.send('PATCH', webhookPath(id), { body: changes })).json() as Promise<Webhook>;
  }

  /** Its pending deliveries are dropped. */
  async remove(id: string): Promise<void> {
    await this.send('DELETE', webhookPath(id));
  }

  /** Queues a `webhook.test` event for this endpoint alone; a 409 ApiError if it is disabled. */
  async test(id: string): Promise<WebhookDelivery> {
    return (await this.send('POST', `${webhookPath(id)}/test`)).json() as Promise<WebhookDelivery>;
  }

  /** A new secret (in this answer only); the old one also signs for 24 hours. */
  async rotateSecret(id: string): Promise<WebhookWithSecret> {
    return (await this.send('POST', `${webhookPath(id)}/rotate-secret`)).json() as Promise<WebhookWithSecret>;
  }

  /** Newest first: the first page, or the one `next` (a previous page's) points to. */
  async deliveries(id: string, next?: string): Promise<DeliveryPage> {
    const response = await this.send('GET', next ?? `${webhookPath(id)}/deliveries?limit=${DELIVERY_PAGE_SIZE}`);
    return { deliveries: (await response.json()) as WebhookDelivery[], next: nextPathOf(response.headers.get('link')) };
  }
}
