import type { ProviderDefinition } from './provider-definition.js';
import { googleGenerateContent } from './wire/google-generate-content.js';

/** Gemini API (`POST /v1beta/models/{model}:generateContent`, `x-goog-api-key`). */
export const google: ProviderDefinition = {
  name: 'Google Gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  // The alias follows Google's current Flash model, so retirements do not break a deployment.
  defaultModel: 'gemini-flash-latest',
  wire: googleGenerateContent,
  // Google answers a bad key with 400 INVALID_ARGUMENT and reason API_KEY_INVALID in `details`.
  rejectsKey: (status, body) => status === 400 && JSON.stringify(body ?? null).includes('"API_KEY_INVALID"'),
};
