/**
 * `webhooks list | create | get | update | delete | test | rotate-secret | deliveries`: the
 * account's webhook endpoints from the shell (scope `webhooks:admin`). A signing secret is shown
 * by `create` and `rotate-secret` only, as the last line of stdout (so `tail -n 1` takes it) and
 * nowhere else; `--json` prints the API's answer instead, the secret in it, the warning on stderr.
 */
import { type CreateWebhookInput, type UpdateWebhookInput, WEBHOOK_EVENT_TYPES, type Webhook, type WebhookDelivery, type WebhookSubscription, type WebhookWithSecret } from '../index.js';
import { parseCommand, positiveInteger } from './args.js';
import { type CliContext, type CliIo, UsageError } from './io.js';
import { formatTable } from './table.js';

const DEFAULT_DELIVERIES = 20;
const SUBSCRIPTIONS: ReadonlySet<string> = new Set<WebhookSubscription>([...WEBHOOK_EVENT_TYPES, '*']);

function eventsOf(raw: string): WebhookSubscription[] {
  const events = [...new Set(raw.split(',').map((event) => event.trim()).filter((event) => event !== ''))];
  if (events.length === 0) throw new UsageError('--events needs at least one event type, or * for all');
  const unknown = events.filter((event) => !SUBSCRIPTIONS.has(event));
  if (unknown.length > 0) throw new UsageError(`unknown event type ${unknown.map((event) => JSON.stringify(event)).join(', ')}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}, or * for all`);
  return events as WebhookSubscription[];
}

function oneId(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`webhooks ${command} takes one webhook ID, got ${positionals.length}`);
  return positionals[0]!;
}

const printJson = (io: CliIo, value: unknown) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
const stateOf = (hook: Webhook) => (hook.disabled ? 'disabled' : 'enabled');

function describeWebhook(hook: Webhook): string {
  return [
    `id           ${hook.id}`,
    `url          ${hook.url}`,
    `events       ${hook.events.join(',')}`,
    `description  ${hook.description ?? '-'}`,
    `state        ${stateOf(hook)}${hook.disabled ? ' (persona-refine webhooks update ID --enable sends again)' : ''}`,
    `created      ${hook.createdAt}`,
  ].map((line) => `${line}\n`).join('');
}

/** The secret last, alone on its line; with --json the whole answer, and the warning on stderr. */
function printSecret(io: CliIo, hook: WebhookWithSecret, json: boolean | undefined, what: string): void {
  const warning = 'the secret is shown only now: store it where your receiver reads it';
  if (json) {
    io.stderr.write(`${what}; ${warning}\n`);
    printJson(io, hook);
    return;
  }
  io.stdout.write(`${what}; ${warning}:\n${hook.secret}\n`);
}

export async function listWebhooks(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { json: { type: 'boolean' } });
  if (positionals.length !== 0) throw new UsageError('webhooks list takes no arguments');
  const hooks = await client().webhooks.list();
  if (values.json) printJson(io, hooks);
  else if (hooks.length === 0) io.stderr.write('no webhook endpoints; add one with persona-refine webhooks create\n');
  else {
    const rows = hooks.map((hook) => [hook.id, stateOf(hook), hook.events.join(','), hook.url, hook.description ?? '']);
    io.stdout.write(formatTable([{ title: 'id' }, { title: 'state' }, { title: 'events' }, { title: 'url' }, { title: 'description' }], rows));
  }
  return 0;
}

export async function createWebhook(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, {
    url: { type: 'string' },
    events: { type: 'string' },
    description: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length !== 0) throw new UsageError('webhooks create takes only options');
  if (values.url === undefined) throw new UsageError('webhooks create needs --url URL');
  if (values.events === undefined) throw new UsageError('webhooks create needs --events, e.g. --events label.moved,eval.failed (or * for all)');
  const input: CreateWebhookInput = { url: values.url, events: eventsOf(values.events) };
  if (values.description !== undefined) input.description = values.description;
  const hook = await client().webhooks.create(input);
  printSecret(io, hook, values.json, `created webhook ${hook.id} for ${hook.url} (${hook.events.join(',')})`);
  return 0;
}

export async function getWebhook(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { json: { type: 'boolean' } });
  const hook = await client().webhooks.get(oneId(positionals, 'get'));
  if (values.json) printJson(io, hook);
  else io.stdout.write(describeWebhook(hook));
  return 0;
}

export async function updateWebhook(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, {
    url: { type: 'string' },
    events: { type: 'string' },
    description: { type: 'string' },
    'no-description': { type: 'boolean' },
    enable: { type: 'boolean' },
    disable: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const id = oneId(positionals, 'update');
  if (values.description !== undefined && values['no-description']) throw new UsageError('give --description TEXT or --no-description, not both');
  if (values.enable && values.disable) throw new UsageError('give --enable or --disable, not both');
  const input: UpdateWebhookInput = {
    ...(values.url === undefined ? {} : { url: values.url }),
    ...(values.events === undefined ? {} : { events: eventsOf(values.events) }),
    ...(values.description === undefined ? {} : { description: values.description }),
    ...(values['no-description'] ? { description: null } : {}),
    ...(values.enable ? { disabled: false } : {}),
    ...(values.disable ? { disabled: true } : {}),
  };
  if (Object.keys(input).length === 0) throw new UsageError('webhooks update needs something to change: --url, --events, --description, --no-description, --enable or --disable');
  const hook = await client().webhooks.update(id, input);
  if (values.json) printJson(io, hook);
  else io.stdout.write(describeWebhook(hook));
  return 0;
}

export async function deleteWebhook(args: string[], { io, client }: CliContext): Promise<number> {
  const { positionals } = parseCommand(args, {});
  const id = oneId(positionals, 'delete');
  await client().webhooks.delete(id);
  io.stdout.write(`deleted webhook ${id}; its pending deliveries are dropped\n`);
  return 0;
}

export async function testWebhook(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { json: { type: 'boolean' } });
  const id = oneId(positionals, 'test');
  const delivery = await client().webhooks.test(id);
  if (values.json) printJson(io, delivery);
  else io.stdout.write(`sent a webhook.test event (${delivery.eventId}) to ${id}: delivery ${delivery.id} is ${delivery.status}; persona-refine webhooks deliveries ${id} shows how it went\n`);
  return 0;
}

export async function rotateWebhookSecret(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { json: { type: 'boolean' } });
  const hook = await client().webhooks.rotateSecret(oneId(positionals, 'rotate-secret'));
  printSecret(io, hook, values.json, `new secret for webhook ${hook.id}; for 24 hours deliveries are signed with the old one too`);
  return 0;
}

const DELIVERY_COLUMNS = [
  { title: 'created' },
  { title: 'delivery' },
  { title: 'event' },
  { title: 'type' },
  { title: 'status' },
  { title: 'attempts', align: 'right' },
  { title: 'last', align: 'right' },
  { title: 'next attempt' },
  { title: 'last error' },
] as const;

const deliveryRow = (delivery: WebhookDelivery) => [
  delivery.createdAt,
  delivery.id,
  delivery.eventId,
  delivery.type,
  delivery.status,
  String(delivery.attempts),
  delivery.lastStatusCode === null ? '-' : String(delivery.lastStatusCode),
  delivery.nextAttemptAt ?? '-',
  delivery.lastError ?? '',
];

export async function listDeliveries(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, { limit: { type: 'string' }, all: { type: 'boolean' }, json: { type: 'boolean' } });
  const id = oneId(positionals, 'deliveries');
  if (values.all && values.limit !== undefined) throw new UsageError('give --limit N or --all, not both');
  const limit = values.all ? Infinity : values.limit === undefined ? DEFAULT_DELIVERIES : positiveInteger(values.limit, '--limit');
  const deliveries: WebhookDelivery[] = [];
  for await (const delivery of client().webhooks.deliveries(id, { pageSize: Math.min(limit, 1000) })) {
    deliveries.push(delivery);
    if (deliveries.length >= limit) break;
  }
  if (values.json) printJson(io, deliveries);
  else if (deliveries.length === 0) io.stderr.write(`no deliveries to ${id} in the last 30 days; persona-refine webhooks test ${id} sends one\n`);
  else io.stdout.write(formatTable(DELIVERY_COLUMNS, deliveries.map(deliveryRow)));
  return 0;
}
