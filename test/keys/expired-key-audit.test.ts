/**
 * `key.expired` is written once, by the first refusal of an expired key. The write is not awaited
 * by the refusal, so a second refusal can arrive while it is in flight: it must not start a
 * second write that could take the row first (on PostgreSQL it sometimes did, and the event
 * carried the second request's id).
 */
import { describe, expect, it } from 'vitest';
import { AccountService } from '../../src/accounts/account-service.js';
import { Authenticator } from '../../src/accounts/authenticator.js';
import { AccountRepository } from '../../src/storage/account-repository.js';
import { openStorage } from '../../src/storage/database.js';
import { sqliteTarget } from '../helpers/storage-targets.js';

describe('an expired key', () => {
  it("is reported once while its key.expired is being written, so the first refusal's request is the one recorded", async () => {
    const database = await sqliteTarget.create();
    const storage = await openStorage(database.config);
    try {
      const repository = new AccountRepository(storage.db);
      const issued = await new AccountService(repository).createAccount('expiring');
      await storage.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1_000).toISOString() }).where('id', '=', issued.keyId).execute();
      const reported: (string | undefined)[] = [];
      const writes: (() => void)[] = [];
      const authenticator = new Authenticator(repository, 2_000, ({ requestId }) => {
        reported.push(requestId);
        return new Promise<void>((resolve) => writes.push(resolve));
      });
      const refuse = (requestId: string) => expect(authenticator.authenticate(`Bearer ${issued.key}`, requestId)).rejects.toThrow(/^API key expired at /);
      await refuse('first');
      await refuse('second');
      expect(reported).toEqual(['first']);
      // Once that write has ended, a later refusal may report again (the database keeps it to one event).
      for (const write of writes) write();
      await new Promise((resolve) => setImmediate(resolve));
      await refuse('third');
      expect(reported).toEqual(['first', 'third']);
    } finally {
      await storage.close();
      await database.remove();
    }
  });
});
