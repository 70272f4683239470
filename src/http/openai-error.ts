/**
 * A DomainError in OpenAI's error body, for the routes OpenAI's clients call
 * (`config: { errorBody: 'openai' }`): `{"error":{"message","type","param","code"}}`, so each
 * client raises its own class (AuthenticationError, RateLimitError…) with our message. The
 * status is the one the rest of the API gives, but for a provider refusing the caller's key:
 * on these routes that key is the caller's credential for the call, so it is a 401
 * (AuthenticationError), not the 400 a refine gives for a bad request member.
 */
import type { DomainError } from '../errors.js';
import type { OpenAiErrorBody } from '../schemas/chat.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The error body this route answers with: ours by default, OpenAI's for its clients. */
    errorBody?: 'openai';
  }
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

export function openAiStatus(error: DomainError): number {
  return error.keyRefused ? 401 : error.status;
}

export function openAiErrorBody(error: DomainError, status: number): OpenAiErrorBody {
  const type = TYPE_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
  return { error: { message: error.message, type, param: null, code: error.code } };
}
