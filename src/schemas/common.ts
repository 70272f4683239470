import { Type, type Static } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.Integer({ format: 'int32', description: 'The HTTP status code' }),
    message: Type.String({ description: 'What went wrong and, where it helps, how to fix it' }),
  },
  { $id: 'Error', additionalProperties: false },
);
export type ErrorBody = Static<typeof ErrorBody>;

const errorResponse = (description: string) => ({ description, ...Type.Ref('Error') });

/** The error responses every authenticated /v1 route can give, for the OpenAPI document. */
export const commonErrors = {
  400: errorResponse('Invalid request'),
  401: errorResponse('Missing, malformed, unknown or revoked API key'),
  413: errorResponse('Request body too large'),
  415: errorResponse('Request body is not application/json'),
  429: errorResponse('Rate limit exceeded'),
  500: errorResponse('Unexpected error'),
  503: errorResponse('Overloaded or storage unavailable'),
};

export const notFoundError = { 404: errorResponse('No such resource') };
export const preconditionError = { 412: errorResponse('If-Match does not match the current ETag') };
/** Request headers the write routes read; declared so they are validated and documented. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Makes a retry return the first answer (24 h)' })),
});
/** The routes that may answer from the answer cache (docs/usage-cache-fallbacks.md). */
export const CacheControlHeaders = Type.Object({
  'cache-control': Type.Optional(
    Type.String({ maxLength: 200, description: 'Opt in to the answer cache: `max-age=N` (seconds), `no-cache` or `no-store`' }),
  ),
});
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'ETag(s) the persona must still have' })),
});

/** Response headers, for the OpenAPI document. */
export const ETagHeader = {
  ETag: Type.String({ description: 'The persona\'s version as a strong validator (`"3"`): send it back in `If-Match`' }),
};
export const NextPageHeader = {
  Link: Type.String({ description: '`<…>; rel="next"`: the next page, present only when there is one' }),
};

export const idempotencyErrors = {
  409: errorResponse('A request with this Idempotency-Key is still in progress'),
  422: errorResponse('Idempotency-Key was reused with a different request body'),
};
export const providerErrors = {
  502: errorResponse('The provider failed'),
  504: errorResponse('The provider did not answer in time'),
};


/**
 * A compile-time check that an HTTP schema's type and the domain's agree:
 * `Assignable<From, To>` fails to compile unless a `From` can be given where a
 * `To` is expected — a request body where the domain takes its request, the
 * domain's answer where the response schema serializes it
 * (docs/architecture.md, "The domain owns its types").
 */
export type Assignable<From extends To, To> = From;
