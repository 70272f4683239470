/** Both engines behind one list, so a suite can run `describe.each(storageTargets)`. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseConfig } from '../../src/config.js';
import { createTestDatabase, postgresAvailable } from './services.js';

export interface StorageTarget {
  engine: 'sqlite' | 'postgres';
  /** A fresh, empty database and the function that removes it. */
  create(): Promise<{ config: DatabaseConfig; url: string; remove: () => Promise<void> }>;
}

const sqlite: StorageTarget = {
  engine: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'persona-refine-test-'));
    const path = join(dir, 'personas.sqlite');
    return { config: { kind: 'sqlite', path }, url: `sqlite:${path}`, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

const postgres: StorageTarget = {
  engine: 'postgres',
  async create() {
    const database = await createTestDatabase();
    return { config: { kind: 'postgres', url: database.url }, url: database.url, remove: database.drop };
  },
};

export const storageTargets: StorageTarget[] = postgresAvailable ? [sqlite, postgres] : [sqlite];
export { sqlite as sqliteTarget, postgres as postgresTarget };
