/** A port already taken stops the start with one line naming PORT, the variable that picks another. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runServerExpectingFailure } from '../helpers/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'persona-refine-busy-port-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('says which port is taken and how to choose another, in one line, and exits 1', async () => {
  const squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  const port = (squatter.address() as AddressInfo).port;
  try {
    const { code, output } = await runServerExpectingFailure({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, LOG_FORMAT: 'json' });
    expect(code).toBe(1);
    const last = output.trim().split('\n').at(-1);
    expect(last).toBe(
      `invalid configuration: PORT ${port} is already in use on 127.0.0.1: stop what listens there, or choose another port, e.g. PORT=${port + 1} npm start`,
    );
    expect(output).not.toMatch(/\n\s+at /);
  } finally {
    squatter.close();
  }
});
