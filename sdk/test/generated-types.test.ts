/**
 * The SDK's types are generated from the server's OpenAPI document. This fails when the server
 * serves a different document than the one the committed types were generated from: run
 * `npm run gen:sdk-types`, then let `tsc` show what the change breaks in the SDK.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK_TYPES_PATH, renderSdkTypes } from '../../scripts/generate-sdk-types.mjs';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';

describe('sdk/src/generated/openapi.ts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('matches what the server serves at GET /v1/openapi.json today (else: npm run gen:sdk-types)', async () => {
    const res = await fetch(`${server.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const expected = await renderSdkTypes(await res.json());
    const committed = readFileSync(SDK_TYPES_PATH, 'utf8');
    expect(committed, 'the committed SDK types are stale: run `npm run gen:sdk-types`').toBe(expected);
  });
});
