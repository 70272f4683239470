/** Data and storage every scenario shares: the key, a realistic persona, fresh databases. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** BOOTSTRAP_API_KEY for every service the bench starts (≥ 32 chars). */
export const API_KEY = 'prk_bench_0123456789abcdefghijklmnopqrstuvwxyz';
export const AUTH = { authorization: `Bearer ${API_KEY}` };
export const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
/** The caller's own provider key, as the fake sees it. */
export const PROVIDER_KEY = 'sk-bench-not-a-real-key-0123456789';

/**
 * A persona with rules the fake's answer already satisfies after the deterministic fixes,
 * so every refine is exactly one provider call (no repair call doubling the provider time).
 */
export const PERSONA = {
  name: 'Friendly support',
  attributes: {
    tone: 'warm, direct',
    formality: 'casual',
    audience: 'small-business owners',
    avoid: ['synergy', 'leverage'],
    signOff: 'Cheers,\nThe Acme team',
  },
};

/**
 * The persona the refine, peer, idempotency, writes and many-in-flight scenarios use, as a user
 * sets one up: tone and formality, and rules — a vocabulary (fixed in the answer), words to
 * avoid and a sign-off (appended) — with `preserve` on, as it is for every persona. The fake's
 * answer satisfies them after the deterministic fixes, so a refine is one provider call.
 */
export const REFINE_PERSONA = {
  name: 'Friendly support',
  attributes: {
    tone: 'warm, direct',
    formality: 'casual',
    vocabulary: { order: 'purchase', 'distribution center': 'warehouse' },
    avoid: ['synergy', 'leverage'],
    signOff: 'Cheers,\nThe Acme team',
  },
};

/** No rule attributes: nothing for a stream to hold back but what every persona has (`preserve`). */
export const PLAIN_PERSONA = {
  name: 'Plain',
  attributes: { tone: 'warm, direct', formality: 'casual' },
};

/** ~650 characters of typical model output to rewrite, with a number and a link for `preserve` to keep. */
export const CONTENT =
  'Thank you for reaching out to us regarding your recent order. We sincerely apologize for any ' +
  'inconvenience this delay may have caused. Our team has thoroughly investigated the matter and ' +
  'determined that the shipment was held at our regional distribution center due to an unexpected ' +
  'surge in volume. We have now expedited your package, and you should receive a tracking number ' +
  'within the next 24 hours at https://acme.example/track/40213. Please do not hesitate to contact us should you have any further ' +
  'questions or concerns. We truly value your business and appreciate your patience and understanding ' +
  'as we work to resolve this issue.';

export function refineBody(personaId: string): string {
  return JSON.stringify({ provider: 'openai', providerApiKey: PROVIDER_KEY, personaId, content: CONTENT });
}

/** Creates `count` personas through the API; returns their ids, oldest first. */
export async function seedPersonas(serviceUrl: string, count: number, persona: { name: string; attributes: Record<string, unknown> } = PERSONA): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(`${serviceUrl}/v1/personas`, {
        method: 'POST',
        headers: JSON_AUTH,
        body: JSON.stringify({ ...persona, name: `${persona.name} ${i + 1}` }),
      });
      const body = (await response.json()) as { id?: string };
      // Just started on a busy machine, the service may shed load (503 + Retry-After) for a moment.
      if (response.status === 503 && attempt < 10) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      if (response.status !== 201 || !body.id) throw new Error(`seeding persona failed: ${response.status} ${JSON.stringify(body)}`);
      ids.push(body.id);
      break;
    }
  }
  return ids;
}

export interface Database {
  url: string;
  drop(): Promise<void>;
}

/** A fresh SQLite file in its own temp directory, removed afterwards. */
export function freshSqlite(): Database {
  const dir = mkdtempSync(join(tmpdir(), 'persona-bench-'));
  return { url: `sqlite:${join(dir, 'personas.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh PostgreSQL database for one run, or undefined when PostgreSQL is not reachable. */
export async function freshPostgres(): Promise<Database | undefined> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2_000 });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  const name = `persona_bench_${process.pid}_${Date.now()}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      try {
        // WITH (FORCE): a service killed mid-run may leave sessions behind.
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
