/**
 * Builds the Fastify app from injected dependencies, in a fixed order:
 * framework settings → cross-cutting plugins → routes. Tests build it the
 * same way the server does.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Redis } from 'ioredis';
import { AccountService } from './accounts/account-service.js';
import { AuditTrail } from './audit/audit-trail.js';
import { Authenticator } from './accounts/authenticator.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { installAuth } from './http/auth.js';
import { installClientClosed } from './http/client-closed.js';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './http/error-handler.js';
import { idempotency, idempotencyDeferral } from './http/idempotency.js';
import { installJsonBody } from './http/json-body.js';
import { installLargeBodyBudget } from './http/large-bodies.js';
import { installLoadShedding } from './http/load-shedding.js';
import { installMetrics } from './http/metrics-plugin.js';
import { methodNotAllowed } from './http/method-not-allowed.js';
import { installOpenApi, openApiRoute } from './http/openapi.js';
import { installRateLimit } from './http/rate-limit.js';
import { installBudgets } from './http/budgets.js';
import { Metering } from './usage/metering.js';
import { type BudgetStore, MemoryBudgetStore, RedisBudgetStore } from './limits/key-budget.js';
import { memoizedSerializerFactory } from './http/serialization.js';
import { installRequestContext, OneLinePerRequest, requestIdFor } from './http/request-context.js';
import { installSlowReaderTimeout } from './http/slow-readers.js';
import { installStorableInput } from './http/storable-input.js';
import { installValidation } from './http/validation.js';
import { ConcurrencyLimiter } from './limits/concurrency-limiter.js';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from './limits/rate-limiter.js';
import { logDestination } from './logging/log-destination.js';
import { createMetrics } from './metrics.js';
import { PersonaCheck } from './refine/persona-check.js';
import { Judge } from './scoring/judge.js';
import { PersonaHistory } from './personas/persona-history.js';
import { PersonaService } from './personas/persona-service.js';
import { createProviderRegistry } from './providers/index.js';
import { CompiledPersonas } from './refine/compiled-personas.js';
import { RefineService } from './refine/refine-service.js';
import { auditRoutes } from './routes/audit.js';
import { keyRoutes } from './routes/keys.js';
import { labelPolicyRoutes } from './routes/label-policies.js';
import { LabelPolicies } from './personas/label-policies.js';
import { LabelPolicyRepository } from './storage/label-policy-repository.js';
import { LabelPolicy } from './schemas/label-policies.js';
import { EvalRunner } from './evals/eval-runner.js';
import { completedEvaluation, Evaluations } from './evals/evaluations.js';
import { EvalSamples } from './evals/samples.js';
import { evalRoutes } from './routes/evals.js';
import { EvalDoneEvent, EvalErrorEvent, EvalProgressEvent, EvalResult, EvalRun, EvalRunWithResultsSchema, Sample } from './schemas/evals.js';
import { EvalRepository } from './storage/eval-repository.js';
import { SampleRepository } from './storage/sample-repository.js';
import { uuidv7 } from './ids.js';
import { KeyService } from './accounts/key-service.js';
import { ApiKey, IssuedApiKey } from './schemas/keys.js';
import { healthRoutes } from './routes/health.js';
import { checkRoutes } from './routes/check.js';
import { personaHistoryRoutes } from './routes/persona-history.js';
import { personaRoutes } from './routes/personas.js';
import { personaVariantRoutes } from './routes/persona-variants.js';
import { personaDraftRoutes } from './routes/persona-draft.js';
import { PersonaDrafter } from './personas/drafting/persona-drafter.js';
import { providerRoutes } from './routes/providers.js';
import { refineRoutes } from './routes/refine.js';
import { CHAT_HASHED_HEADERS, chatCompletionRoutes } from './routes/chat-completions.js';
import { modelRoutes } from './routes/models.js';
import { ChatService } from './chat/chat-service.js';
import { ChatCompletionChunk, OpenAiErrorBody } from './schemas/chat.js';
import { studioRoutes } from './routes/studio.js';
import { AuditEvent } from './schemas/audit.js';
import { ErrorBody } from './schemas/common.js';
import { Persona, PersonaAttributes, StoredPersonaAttributes } from './schemas/persona.js';
import { PersonaVersion } from './schemas/persona-history.js';
import { StreamDelta, StreamDone } from './schemas/refine.js';
import { AccountRepository } from './storage/account-repository.js';
import { AuditRepository } from './storage/audit-repository.js';
import type { Storage } from './storage/database.js';
import { IdempotencyRepository } from './storage/idempotency-repository.js';
import { PersonaHistoryRepository } from './storage/persona-history-repository.js';
import { PersonaRepository } from './storage/persona-repository.js';
import { AnswerCache } from './cache/answer-cache.js';
import { MemoryAnswerStore, RedisAnswerStore } from './cache/answer-store.js';
import { SecretRepository, ServiceSecret } from './storage/secret-repository.js';
import { UsageRepository } from './storage/usage-repository.js';
import { UsageRecorder } from './usage/usage-recorder.js';
import { UsageService } from './usage/usage-service.js';
import { usageRoutes } from './routes/usage.js';
import { qualityRoutes } from './routes/quality.js';
import { feedbackRoutes } from './routes/feedback.js';
import { Feedback } from './schemas/quality.js';
import { QualityRepository } from './storage/quality-repository.js';
import { FeedbackRepository } from './storage/feedback-repository.js';
import { QualityRecorder } from './quality/quality-recorder.js';
import { LiveAnswers } from './quality/live-answers.js';
import { QualityReport } from './quality/quality-report.js';
import { FEEDBACK_WINDOW_DAYS, FeedbackService } from './quality/feedback-service.js';
import { RetentionPolicies } from './quality/retention-policies.js';
import { ReviewQueue } from './quality/review-queue.js';
import { ReviewRecorder } from './quality/review-recorder.js';
import { reviewRoutes } from './routes/reviews.js';
import { Review } from './schemas/reviews.js';
import { ReviewRepository } from './storage/review-repository.js';
import { type HttpTracer, noHttpTracing } from './tracing/http-tracer.js';
import { webhookRoutes } from './routes/webhooks.js';
import { Webhook, WebhookDelivery, WebhookEventSchema, WebhookWithSecretSchema } from './schemas/webhooks.js';
import { WebhookRepository } from './storage/webhook-repository.js';
import { AllowedHosts } from './webhooks/address-policy.js';
import { SecretSeal } from './webhooks/secret-seal.js';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.js';
import { type Resolve, systemResolve, WebhookSender } from './webhooks/webhook-sender.js';
import { WebhookService } from './webhooks/webhook-service.js';
import { PACKAGE_VERSION, SERVICE_VERSION } from './version.js';

export interface AppDependencies {
  config: Config;
  storage: Storage;
  /** Shared limits across instances; in-process limits when absent. */
  redis?: Redis;
  /** Where log lines go; defaults to stdout. Tests capture them to prove no secret leaks. */
  logStream?: DestinationStream;
  /** Spans for requests and the refine's steps; off (no-op) when absent. */
  tracer?: HttpTracer;
  /** The time keys are judged by (the authentication cache, expiry, a rotation's grace); tests move it instead of waiting. */
  clock?: Clock;
  /** How webhook hosts resolve; the system's resolver unless a test stands in for DNS (a rebinding name). */
  resolve?: Resolve;
}

export interface App {
  app: FastifyInstance;
  accounts: AccountService;
  /** The review queue's writer and sweep (tests sweep after moving the clock instead of waiting for it). */
  reviews: ReviewRecorder;
  /** Sends webhook deliveries (tests drain it after moving the clock instead of waiting for a retry). */
  webhooks: WebhookDispatcher;
}

export async function buildApp({ config, storage, redis, logStream, tracer = noHttpTracing, clock = systemClock, resolve = systemResolve }: AppDependencies): Promise<App> {
  const app = Fastify({
    logger: { level: config.logLevel, stream: logStream ?? (await logDestination(config.logFormat)) },
    genReqId: requestIdFor,
    requestIdHeader: false,
    logController: new OneLinePerRequest(),
    bodyLimit: config.bodyLimitBytes,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Our own 503 while closing (request-context.ts), with Retry-After and the usual body.
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(SERVICE_VERSION),
    // A request without Host is answered in our shape (request-context.ts), not with Node's empty 400.
    http: { requireHostHeader: false },
    // Longer than the usual 60 s load-balancer idle timeout, so the balancer closes first.
    keepAliveTimeout: 72_000,
    // Time to receive a whole request (not to answer it): slow-loris protection.
    requestTimeout: 30_000,
    connectionTimeout: 0,
    routerOptions: { maxParamLength: 500 },
    frameworkErrors: frameworkErrorHandler(SERVICE_VERSION),
    schemaController: { compilersFactory: { buildSerializer: memoizedSerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.headersTimeout = 15_000;
  // First, so that every request — a 401 or a 404 too — gets its server span.
  tracer.instrument(app);

  const metrics = createMetrics();
  storage.reportTo({ warn: (message, cause) => app.log.warn({ err: cause }, message), info: (message) => app.log.info(message) });
  const accountRepository = new AccountRepository(storage.db);
  const accounts = new AccountService(accountRepository);
  // key.expired is written once, by whichever instance refuses the key first; its actor is the expired key.
  const authenticator = new Authenticator(accountRepository, 2_000, ({ accountId, keyId, requestId }) =>
    accountRepository
      .recordExpiry({ accountId, keyId, requestId: requestId ?? '', at: new Date().toISOString() }, keyId)
      .then(
        () => undefined,
        (error: unknown) => app.log.warn({ err: error, keyId }, 'key.expired could not be recorded'),
      ), clock);
  const personas = new PersonaService(new PersonaRepository(storage.db));
  // Webhooks (docs/webhooks.md): changes write their events into the outbox; every instance sends it.
  const webhookRepository = new WebhookRepository(storage.db, storage.engine);
  const recordWebhookEvent = (entry: Parameters<WebhookRepository['record']>[0]) =>
    webhookRepository.record(entry).catch((error: unknown) => app.log.warn({ err: error, type: entry.event.type }, 'webhook event could not be recorded'));
  const history = new PersonaHistory(new PersonaHistoryRepository(storage.db), personas, (actor, refusal) =>
    recordWebhookEvent({ accountId: actor.accountId, at: new Date(clock.now()).toISOString(), event: { type: 'label.refused', data: { ...refusal, keyId: actor.keyId } } }),
  );
  const compiledPersonas = new CompiledPersonas(personas, history);
  const memoryLimiter = new MemoryRateLimiter(config.rateLimitPerMinute);
  const rateLimiter: RateLimiter = redis
    ? new RedisRateLimiter(redis, config.rateLimitPerMinute, memoryLimiter, (message) => app.log.warn(message))
    : memoryLimiter;
  // Per-key budgets (docs/keys-and-scopes.md, "Budgets"): shared through Redis like the rate limit.
  const refineLimiter: RateLimiter = redis
    ? new RedisRateLimiter(redis, 0, new MemoryRateLimiter(0), (message) => app.log.warn(message))
    : new MemoryRateLimiter(0);
  // A reservation outlives any refine (every provider call timing out, fallbacks and repair included); it only matters when an instance dies.
  const reservationMs = config.providerTimeoutMs * 8 + 60_000;
  const memoryBudgets = new MemoryBudgetStore(reservationMs);
  const budgets: BudgetStore = redis
    ? new RedisBudgetStore(redis, reservationMs, memoryBudgets, (message) => app.log.warn(message))
    : memoryBudgets;
  const idempotencyStore = new IdempotencyRepository(storage.db, storage.engine);
  const secrets = new SecretRepository(storage.db);
  const sealKey = new ServiceSecret(secrets, 'webhook-secret-seal');
  const webhookSeal = new SecretSeal(() => sealKey.get());
  const allowedHosts = new AllowedHosts(config.webhooks.allowedHosts);
  const webhookDispatcher = new WebhookDispatcher(
    webhookRepository,
    new WebhookSender({ allowedHosts, resolve, timeoutMs: config.webhooks.timeoutMs }),
    webhookSeal,
    clock,
    {
      retrySchedule: config.webhooks.retrySchedule,
      timeoutMs: config.webhooks.timeoutMs,
      userAgent: `persona-refine-webhooks/${PACKAGE_VERSION}`,
      onError: (error, message) => app.log.warn({ err: error }, message),
      onAttempt: ({ outcome, ...attempt }) => {
        metrics.webhookAttempts.inc({ outcome });
        if (outcome === 'retry') app.log.info(attempt, 'webhook delivery failed; it is tried again');
        else if (outcome === 'failed') app.log.warn(attempt, 'webhook delivery failed for good');
      },
    },
  );
  // Started once the app listens (server.ts and tests call start through onReady); closed before storage.
  app.addHook('onReady', async () => webhookDispatcher.start());
  app.addHook('onClose', () => webhookDispatcher.close());
  const pruneWebhooks = setInterval(() => void webhookRepository.prune(new Date(clock.now() - 30 * 86_400_000).toISOString()).catch(() => {}), 60 * 60_000);
  pruneWebhooks.unref();
  app.addHook('onClose', async () => clearInterval(pruneWebhooks));
  const idempotencyOptions = {
    store: idempotencyStore, waitMs: config.providerTimeoutMs + 5_000, staleAfterMs: config.providerTimeoutMs + 60_000,
    hashKey: new ServiceSecret(secrets, 'idempotency-hmac'),
  };
  const purge = setInterval(() => void idempotencyStore.purgeExpired(new Date()).catch(() => {}), 10 * 60_000);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));
  const usageRepository = new UsageRepository(storage.db, (error) =>
    app.log.warn({ err: error }, 'usage counts by key could not be written; the account totals were'),
  );
  const usageRecorder = new UsageRecorder(usageRepository, metrics, config.usageFlushMs, (error) =>
    app.log.warn({ err: error }, 'usage counts could not be written'),
    (increment, error) => {
      metrics.usageRowsDropped.inc();
      app.log.error({ err: error, accountId: increment.accountId, day: increment.day }, 'usage row refused by the database and dropped');
    },
  );
  // After in-flight requests finished (onClose runs then), before storage closes.
  app.addHook('onClose', () => usageRecorder.close());
  const answerStore = redis
    ? new RedisAnswerStore(redis, (message) => app.log.warn(message))
    : new MemoryAnswerStore(config.cacheMemoryBytes);
  const answerCache = new AnswerCache(answerStore, new ServiceSecret(secrets, 'answer-cache-hmac'), config.cacheTtlSeconds, (message, error) =>
    app.log.warn({ err: error }, message),
  );
  // Quality on live traffic and feedback (docs/quality.md): batched like usage, flushed on close.
  const qualityRepository = new QualityRepository(storage.db, storage.engine);
  const feedbackRepository = new FeedbackRepository(storage.db, storage.engine);
  const qualityRecorder = new QualityRecorder(qualityRepository, feedbackRepository, config.usageFlushMs, (error) =>
    app.log.warn({ err: error }, 'quality counts could not be written'),
    (accountId, error) => app.log.error({ err: error, accountId }, 'quality row refused by the database and dropped'),
  );
  app.addHook('onClose', () => qualityRecorder.close());
  // The review queue (docs/quality.md): answers kept per persona policy, batched like the counts.
  const reviewRepository = new ReviewRepository(storage.db);
  const retention = new RetentionPolicies(reviewRepository, clock);
  const reviewRecorder = new ReviewRecorder(reviewRepository, retention, clock, {
    flushMs: config.usageFlushMs,
    maxPerPersona: config.reviewQueueMaxItems,
    onError: (error, message) => app.log.warn({ err: error }, message),
  });
  app.addHook('onClose', () => reviewRecorder.close());
  const liveAnswers = new LiveAnswers(qualityRecorder, clock, reviewRecorder);
  // The answer log keeps 30 days; counts of a persona deleted while another instance held them go too.
  const pruneQuality = setInterval(() => {
    void feedbackRepository.prune(new Date(clock.now() - FEEDBACK_WINDOW_DAYS * 86_400_000).toISOString()).catch(() => {});
    void qualityRepository.deleteOrphans().catch(() => {});
  }, 60 * 60_000);
  pruneQuality.unref();
  app.addHook('onClose', async () => clearInterval(pruneQuality));
  const providers = createProviderRegistry(config.providers, { tracer });
  const judge = new Judge(providers, usageRecorder, metrics, tracer);
  const refine = new RefineService(
    compiledPersonas,
    providers,
    config.providerTimeoutMs,
    metrics,
    usageRecorder,
    answerCache,
    judge,
    tracer,
    systemClock,
    liveAnswers,
  );

  const chat = new ChatService(compiledPersonas, { providers, metrics, timeoutMs: config.providerTimeoutMs, usage: usageRecorder, judge, tracer }, answerCache, liveAnswers);

  // One cap per account on this instance, shared by refine requests, chat completions and evaluation samples.
  const refineSlots = new ConcurrencyLimiter(config.maxConcurrentRefinesPerAccount);

  installValidation(app);
  installErrorHandling(app, config.bodyLimitBytes);
  installRequestContext(app, SERVICE_VERSION);
  installStorableInput(app);
  installJsonBody(app);
  installMetrics(app, metrics);
  installClientClosed(app, metrics);
  installLoadShedding(app, config.maxEventLoopDelayMs);
  installSlowReaderTimeout(app, config.slowReaderTimeoutMs, metrics);
  app.addSchema(ErrorBody);
  app.addSchema(PersonaAttributes);
  app.addSchema(StoredPersonaAttributes);
  app.addSchema(Persona);
  app.addSchema(PersonaVersion);
  app.addSchema(AuditEvent);
  app.addSchema(Feedback);
  app.addSchema(Review);
  app.addSchema(ApiKey);
  app.addSchema(IssuedApiKey);
  app.addSchema(LabelPolicy);
  app.addSchema(Webhook);
  app.addSchema(WebhookWithSecretSchema);
  app.addSchema(WebhookDelivery);
  app.addSchema(Sample);
  app.addSchema(EvalResult);
  app.addSchema(EvalRun);
  app.addSchema(EvalRunWithResultsSchema);
  // Not a route's body: the events of a run's event stream, published so the SDK's types come from them.
  app.addSchema(EvalProgressEvent);
  app.addSchema(EvalDoneEvent);
  app.addSchema(EvalErrorEvent);
  // Not a route's body: the events of a streamed refine, published so the SDK's types come from them.
  app.addSchema(StreamDelta);
  app.addSchema(StreamDone);
  app.addSchema(OpenAiErrorBody);
  // Not a route's body: what a webhook receiver gets.
  app.addSchema(WebhookEventSchema);
  // Not a route's body: a streamed chat completion's `data:` lines.
  app.addSchema(ChatCompletionChunk);
  app.decorateRequest('idempotencyScope', null);
  app.decorateRequest('answerNeeds', null);
  await installOpenApi(app);

  const routeMethods = methodNotAllowed();
  routeMethods.track(app);
  await app.register(healthRoutes, { storage });
  await app.register(studioRoutes);
  await app.register(
    async (v1) => {
      installAuth(v1, authenticator);
      installRateLimit(v1, rateLimiter, metrics);
      installLargeBodyBudget(v1, config.bodyLimitBytes);
      const metering = new Metering({
        store: budgets,
        refines: refineLimiter,
        metrics,
        record: (author, entry) => accountRepository.recordEvent(author, entry),
        thresholdCrossed: (accountId, { keyId, limit, used, percent, day }) =>
          void recordWebhookEvent({
            accountId,
            at: new Date(clock.now()).toISOString(),
            event: { type: 'budget.threshold', data: { keyId, limit: 'tokensPerDay', budget: limit, percent, used, day } },
            onceKey: `budget.threshold:${keyId}:${percent}:${day}`,
          }),
        warn: (detail, message) => v1.log.warn(detail, message),
      });
      installBudgets(v1, metering);
      openApiRoute(v1);
      // One key space for every persona write; a key is bound to its method and URL (src/http/idempotency.ts).
      const personaWrites = idempotency('/v1/personas writes', idempotencyOptions);
      await v1.register(personaRoutes, { personas, idempotency: personaWrites });
      await v1.register(personaDraftRoutes, { drafter: new PersonaDrafter(providers, usageRecorder, metrics, config.providerTimeoutMs, tracer) });
      const evalRuns = new EvalRepository(storage.db);
      const policies = new LabelPolicies(new LabelPolicyRepository(storage.db), personas, completedEvaluation);
      await v1.register(personaHistoryRoutes, { history, idempotency: personaWrites, policies });
      await v1.register(personaVariantRoutes, { compiled: compiledPersonas });
      await v1.register(labelPolicyRoutes, { policies });
      await v1.register(auditRoutes, { audit: new AuditTrail(new AuditRepository(storage.db)) });
      await v1.register(refineRoutes, {
        refine,
        concurrency: refineSlots,
        metrics,
        idempotency: idempotency('POST /v1/refine', idempotencyOptions),
        deferIdempotency: idempotencyDeferral(idempotencyStore),
      });
      await v1.register(chatCompletionRoutes, {
        chat,
        concurrency: refineSlots,
        metrics,
        idempotency: idempotency('POST /v1/chat/completions', idempotencyOptions, CHAT_HASHED_HEADERS),
        deferIdempotency: idempotencyDeferral(idempotencyStore),
      });
      await v1.register(modelRoutes, { chat });
      const samples = new EvalSamples(new SampleRepository(storage.db), personas);
      const runner = new EvalRunner(evalRuns, refine, refineSlots, uuidv7(), app.log);
      const evaluations = new Evaluations(evalRuns, runner, samples, personas, compiledPersonas, refine);
      await v1.register(evalRoutes, { bodyLimitBytes: config.bodyLimitBytes, samples, evaluations, runner, metering });
      await v1.register(reviewRoutes, { reviews: new ReviewQueue(reviewRepository, reviewRecorder, retention, personas, samples) });
      await v1.register(checkRoutes, { checker: new PersonaCheck(compiledPersonas, judge, config.providerTimeoutMs, liveAnswers), metering });
      await v1.register(providerRoutes, { refine });
      await v1.register(usageRoutes, { usage: new UsageService(usageRepository, usageRecorder) });
      await v1.register(qualityRoutes, { quality: new QualityReport(qualityRepository, qualityRecorder, personas, clock) });
      await v1.register(feedbackRoutes, { feedback: new FeedbackService(feedbackRepository, qualityRecorder, personas, clock, config.usageFlushMs) });
      await v1.register(keyRoutes, { keys: new KeyService(accountRepository) });
      await v1.register(webhookRoutes, { webhooks: new WebhookService(webhookRepository, webhookSeal, allowedHosts, resolve, clock) });
    },
    { prefix: '/v1' },
  );
  await app.register(async (instance) => routeMethods.install(instance));
  return { app, accounts, reviews: reviewRecorder, webhooks: webhookDispatcher };
}
