/**
 * The only reader of process.env. Everything else receives a typed Config.
 * Variable names are part of the public contract (docs/operations.md, "Configuration").
 */
import { resolve } from 'node:path';
import { findProviderConfigProblem, type ProviderOverrides } from './providers/provider-config.js';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './webhooks/delivery-schedule.js';

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  redisUrl: string | undefined;
  bootstrapApiKey: string | undefined;
  providerTimeoutMs: number;
  rateLimitPerMinute: number;
  maxConcurrentRefinesPerAccount: number;
  bodyLimitBytes: number;
  shutdownGraceMs: number;
  /** Event-loop delay beyond which requests are shed with 503; 0 turns that check off. */
  maxEventLoopDelayMs: number;
  /** A connection whose answer makes no progress to the client for this long is closed. */
  slowReaderTimeoutMs: number;
  logLevel: string;
  workers: number;
  providers: ProviderOverrides;
  /** How often counted usage is written to the database: the most a kill -9 can lose. */
  usageFlushMs: number;
  /** Answers each persona's review queue keeps at most, the oldest dropped first. */
  reviewQueueMaxItems: number;
  /** Bytes the in-process answer cache may hold (when REDIS_URL is unset). */
  cacheMemoryBytes: number;
  /** How long a cached answer is kept; a request's max-age beyond it cannot hit older answers. */
  cacheTtlSeconds: number;
  logFormat: LogFormat;
  webhooks: WebhookConfig;
  /** OpenTelemetry export; undefined (the default) means no tracing code is even loaded. */
  tracing: TracingConfig | undefined;
}

export interface WebhookConfig {
  /** Hosts (lower case) that may use http and resolve to private addresses. */
  allowedHosts: string[];
  /** The waits before each retry. */
  retrySchedule: readonly number[];
  /** How long a receiver has to answer. */
  timeoutMs: number;
}

/** JSON lines for machines; coloured text for a person at a terminal. */
export type LogFormat = { kind: 'json' } | { kind: 'pretty'; colour: boolean };

export interface TracingConfig {
  /** Full OTLP/HTTP traces URL (…/v1/traces). */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** Sent with every export, e.g. a vendor's API key: never logged. */
  headers: Record<string, string>;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  /** Longest a finished span waits before it is exported. */
  exportDelayMs: number;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function httpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

export function parseDatabaseUrl(raw: string | undefined, cwd = process.cwd()): DatabaseConfig {
  if (raw === undefined || raw.trim() === '') {
    return { kind: 'sqlite', path: resolve(cwd, 'data/personas.sqlite') };
  }
  const value = raw.trim();
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) {
    return { kind: 'postgres', url: value };
  }
  const sqlite = /^(?:sqlite|file):(.+)$/.exec(value);
  if (sqlite?.[1]) {
    const path = sqlite[1].replace(/^\/\/(?=\/)/, '');
    return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(cwd, path) };
  }
  throw new ConfigError('DATABASE_URL', 'must start with sqlite:, file: or postgres://');
}

function providerOverrides(env: Env): ProviderOverrides {
  const overrides: ProviderOverrides = { baseUrls: {}, models: {} };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    const match = /^PROVIDER_(BASE_URL|MODEL)_([A-Z0-9_]+)$/.exec(name);
    if (!match?.[1] || !match[2]) continue;
    const id = match[2].toLowerCase().replace(/_/g, '-');
    if (match[1] === 'BASE_URL') overrides.baseUrls[id] = httpUrl(name, value);
    else overrides.models[id] = value.trim();
  }
  return overrides;
}

function workers(env: Env, cores: number): number {
  const raw = env.WORKERS?.trim();
  if (raw === undefined || raw === '') return 1;
  if (raw === 'auto') return cores;
  return integer(env, 'WORKERS', 1, 1, 256);
}

function webhookConfig(env: Env): WebhookConfig {
  const hosts = env.WEBHOOK_ALLOWED_HOSTS?.trim() ?? '';
  const allowedHosts = hosts === '' ? [] : hosts.split(',').map((host) => host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1'));
  const badHost = allowedHosts.find((host) => !/^[a-z0-9.:_-]{1,253}$/.test(host));
  if (badHost !== undefined) throw new ConfigError('WEBHOOK_ALLOWED_HOSTS', `has "${badHost}": list host names or IP addresses, comma-separated, without scheme or port`);
  const scheduleText = env.WEBHOOK_RETRY_SCHEDULE?.trim() ?? '';
  let retrySchedule = DEFAULT_RETRY_SCHEDULE_MS;
  if (scheduleText !== '') {
    const parsed = parseRetrySchedule(scheduleText);
    if ('problem' in parsed) throw new ConfigError('WEBHOOK_RETRY_SCHEDULE', parsed.problem);
    retrySchedule = parsed.schedule;
  }
  return { allowedHosts, retrySchedule, timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000) };
}

function logFormat(env: Env, stdoutIsTty: boolean): LogFormat {
  const raw = env.LOG_FORMAT?.trim() || (stdoutIsTty ? 'pretty' : 'json');
  if (raw !== 'json' && raw !== 'pretty') throw new ConfigError('LOG_FORMAT', `must be json or pretty, got "${raw}"`);
  // https://no-color.org: any non-empty NO_COLOR turns colour off.
  return raw === 'json' ? { kind: 'json' } : { kind: 'pretty', colour: !env.NO_COLOR };
}

/** `k1=v1,k2=v2` with percent-encoded values, as the OpenTelemetry specification writes lists. */
function keyValueList(env: Env, name: string): Record<string, string> {
  const list: Record<string, string> = {};
  for (const pair of (env[name] ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    // The value may be a credential: name the variable, never echo it.
    if (at <= 0) throw new ConfigError(name, 'must be a comma-separated list of key=value pairs');
    try {
      list[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError(name, 'holds a malformed percent-encoding');
    }
  }
  return list;
}

/** The standard OTEL_* variables; tracing is on only when an OTLP endpoint is given. */
function tracing(env: Env): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  let url: string;
  if (tracesEndpoint) url = httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint);
  else if (endpoint) url = `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint)}/v1/traces`;
  else return undefined;
  const protocolVariable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[protocolVariable]?.trim() || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError(protocolVariable, `must be http/protobuf or http/json (gRPC is not supported), got "${protocol}"`);
  }
  const resourceAttributes = keyValueList(env, 'OTEL_RESOURCE_ATTRIBUTES');
  return {
    url,
    protocol,
    headers: { ...keyValueList(env, 'OTEL_EXPORTER_OTLP_HEADERS'), ...keyValueList(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || resourceAttributes['service.name'] || 'persona-refine',
    resourceAttributes,
    exportDelayMs: integer(env, 'OTEL_BSP_SCHEDULE_DELAY', 5_000, 1, 600_000),
  };
}

/** `stdoutIsTty` picks the default log format: pretty at a terminal, JSON otherwise. */
export function loadConfig(env: Env = process.env, cores = 1, stdoutIsTty = false): Config {
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const bootstrapApiKey = env.BOOTSTRAP_API_KEY === '' ? undefined : env.BOOTSTRAP_API_KEY;
  if (bootstrapApiKey !== undefined && (bootstrapApiKey.length < 32 || /\s/.test(bootstrapApiKey))) {
    // The value itself is a secret: never echo it.
    throw new ConfigError('BOOTSTRAP_API_KEY', 'must be at least 32 characters without whitespace');
  }
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://');
  }
  const providers = providerOverrides(env);
  const providerProblem = findProviderConfigProblem(providers);
  if (providerProblem) throw new ConfigError(providerProblem.variable, providerProblem.problem);
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '127.0.0.1',
    database: parseDatabaseUrl(env.DATABASE_URL),
    redisUrl,
    bootstrapApiKey,
    providerTimeoutMs: integer(env, 'PROVIDER_TIMEOUT_MS', 60_000, 1, 600_000),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 1200, 1, 10_000_000),
    maxConcurrentRefinesPerAccount: integer(env, 'MAX_CONCURRENT_REFINES_PER_ACCOUNT', 256, 1, 100_000),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    maxEventLoopDelayMs: integer(env, 'LOAD_SHED_EVENT_LOOP_DELAY_MS', 1_000, 0, 60_000),
    slowReaderTimeoutMs: integer(env, 'SLOW_READER_TIMEOUT_MS', 30_000, 100, 600_000),
    logLevel,
    workers: workers(env, cores),
    providers,
    usageFlushMs: integer(env, 'USAGE_FLUSH_MS', 1_000, 10, 60_000),
    reviewQueueMaxItems: integer(env, 'REVIEW_QUEUE_MAX_ITEMS', 10_000, 1, 10_000),
    cacheMemoryBytes: integer(env, 'CACHE_MEMORY_BYTES', 64 * 1024 * 1024, 0, 64 * 1024 * 1024 * 1024),
    cacheTtlSeconds: integer(env, 'CACHE_TTL_SECONDS', 86_400, 1, 30 * 86_400),
    logFormat: logFormat(env, stdoutIsTty),
    webhooks: webhookConfig(env),
    tracing: tracing(env),
  };
}
