/**
 * The exact-match answer cache. Its key covers everything that changes the
 * answer — account, provider, resolved model, persona id and version, the
 * whole conversation sent (so content, every message, tools, response format
 * and sampling, and any change to the prompt templates), the build (so any
 * change to the rules) — plus an HMAC of the provider key, so an
 * answer one key paid for is never served to another. The key is built from
 * the parsed conversation in a canonical encoding, so JSON key order and
 * whitespace never change it.
 * The HMAC secret is generated once and kept in the database, shared by every
 * instance; the provider key itself is stored nowhere.
 */
import { createHash, createHmac } from 'node:crypto';
import type { Conversation } from '../providers/index.js';
import type { ServiceSecret } from '../storage/secret-repository.js';
import { SERVICE_VERSION } from '../version.js';
import type { AnswerStore, CachedAnswer } from './answer-store.js';

export interface CacheKeyParts {
  accountId: string;
  provider: string;
  model: string;
  /** Persona id and version, as the compiled persona names them. */
  persona: string;
  /** Everything the provider is asked: the persona's instructions, every message, tools, format and sampling. */
  conversation: Conversation;
  providerApiKey: string;
}

/**
 * JSON with every object's keys sorted and absent members left out: the same value always
 * encodes alike, whatever order a request wrote a tool's schema in.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface CacheHit {
  answer: CachedAnswer;
  /** Whole seconds since it was stored, for the Age header. */
  ageSeconds: number;
}

export class AnswerCache {
  constructor(
    private readonly store: AnswerStore,
    private readonly secret: ServiceSecret,
    private readonly ttlSeconds: number,
    private readonly warn: (message: string, error: unknown) => void,
  ) {}

  /** Undefined when the secret cannot be read: the run then goes on without the cache. */
  async key(parts: CacheKeyParts): Promise<string | undefined> {
    let secret: Buffer;
    try {
      secret = await this.secret.get();
    } catch (error) {
      this.warn('answer cache skipped: its key secret could not be read from the database', error);
      return undefined;
    }
    const keyMac = createHmac('sha256', secret).update(parts.providerApiKey).digest('base64url');
    // A JSON array of strings is an unambiguous encoding: no two part lists serialize alike.
    const canonical = JSON.stringify([
      SERVICE_VERSION,
      parts.accountId,
      parts.provider,
      parts.model,
      parts.persona,
      canonicalJson(parts.conversation),
      keyMac,
    ]);
    return createHash('sha256').update(canonical).digest('base64url');
  }

  async lookup(key: string, maxAgeMs: number, now = Date.now()): Promise<CacheHit | undefined> {
    const answer = await this.store.get(key);
    if (!answer) return undefined;
    const ageMs = Math.max(0, now - answer.storedAt);
    if (ageMs > maxAgeMs) return undefined;
    return { answer, ageSeconds: Math.floor(ageMs / 1000) };
  }

  save(key: string, answer: CachedAnswer): Promise<void> {
    return this.store.set(key, answer, this.ttlSeconds);
  }

}
