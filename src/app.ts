/**
 * Builds the Fastify app from injected dependencies, in a fixed order:
 * framework settings → cross-cutting plugins → routes. Tests build it the
 * same way the server does.
 */
import type { Writable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { AccountService } from './accounts/account-service.js';
import { Authenticator } from './accounts/authenticator.js';
import type { Config } from './config.js';
import { installAuth } from './http/auth.js';
import { installErrorHandling } from './http/error-handler.js';
import { installJsonBody } from './http/json-body.js';
import { methodNotAllowed } from './http/method-not-allowed.js';
import { installOpenApi, openApiRoute } from './http/openapi.js';
import { installRequestContext, OneLinePerRequest, requestIdFor } from './http/request-context.js';
import { installValidation } from './http/validation.js';
import { PersonaService } from './personas/persona-service.js';
import { healthRoutes } from './routes/health.js';
import { personaRoutes } from './routes/personas.js';
import { ErrorBody } from './schemas/common.js';
import { Persona } from './schemas/persona.js';
import { AccountRepository } from './storage/account-repository.js';
import type { Storage } from './storage/database.js';
import { PersonaRepository } from './storage/persona-repository.js';
import { SERVICE_VERSION } from './version.js';

export interface AppDependencies {
  config: Config;
  storage: Storage;
  /** Where log lines go; defaults to stdout. Tests capture them to prove no secret leaks. */
  logStream?: Writable;
}

export interface App {
  app: FastifyInstance;
  accounts: AccountService;
}

export async function buildApp({ config, storage, logStream }: AppDependencies): Promise<App> {
  const app = Fastify({
    logger: { level: config.logLevel, ...(logStream ? { stream: logStream } : {}) },
    genReqId: requestIdFor,
    requestIdHeader: false,
    logController: new OneLinePerRequest(),
    bodyLimit: config.bodyLimitBytes,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // Longer than the usual 60 s load-balancer idle timeout, so the balancer closes first.
    keepAliveTimeout: 72_000,
    requestTimeout: 30_000,
    routerOptions: { maxParamLength: 500 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const accountRepository = new AccountRepository(storage.db);
  const accounts = new AccountService(accountRepository);
  const authenticator = new Authenticator(accountRepository);
  const personas = new PersonaService(new PersonaRepository(storage.db));

  installValidation(app);
  installErrorHandling(app, config.bodyLimitBytes);
  installRequestContext(app, SERVICE_VERSION);
  installJsonBody(app);
  app.addSchema(ErrorBody);
  app.addSchema(Persona);
  await installOpenApi(app);

  const routeMethods = methodNotAllowed();
  routeMethods.track(app);
  await app.register(healthRoutes, { storage });
  await app.register(
    async (v1) => {
      installAuth(v1, authenticator);
      openApiRoute(v1);
      await v1.register(personaRoutes, { personas });
    },
    { prefix: '/v1' },
  );
  await app.register(async (instance) => routeMethods.install(instance));
  return { app, accounts };
}
