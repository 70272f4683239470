/** `persona-refine terms import|export`: a term base as CSV, against a real server. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/test-server.js';
import { PersonaRefine } from '../src/index.js';
import { runCli } from './helpers/cli.js';

const CSV = [
  'term,use,replaces,suggest,caseSensitive,forms,note',
  'sign-in,preferred,login|log-in| Log In ,,,,',
  'utilize,forbidden,,use,,exact,"Plain words, always"',
  'Acme Cloud,keep,,,true,,"Product name:',
  'never ""translated"""',
  '',
  'OK,preferred,okay,,false,inflected,',
].join('\r\n');

const TERMS = [
  { term: 'sign-in', use: 'preferred', replaces: ['login', 'log-in', 'Log In'] },
  { term: 'utilize', use: 'forbidden', suggest: 'use', forms: 'exact', note: 'Plain words, always' },
  { term: 'Acme Cloud', use: 'keep', caseSensitive: true, note: 'Product name:\r\nnever "translated"' },
  { term: 'OK', use: 'preferred', replaces: ['okay'], caseSensitive: false, forms: 'inflected' },
];

describe('persona-refine terms', () => {
  let server: TestServer;
  let client: PersonaRefine;
  let cwd: string;
  let personaId: string;
  const cli = (...argv: string[]) => runCli(argv, { cwd, env: { PERSONA_REFINE_API_KEY: server.key, PERSONA_REFINE_URL: server.url } });
  const file = (name: string, text: string) => {
    writeFileSync(join(cwd, name), text);
    return name;
  };

  beforeAll(async () => {
    server = await startTestServer();
    client = new PersonaRefine({ apiKey: server.key, baseUrl: server.url });
    personaId = (await client.personas.create({ name: 'Docs voice', attributes: { tone: 'warm', terms: [{ term: 'old', use: 'keep' }] } })).id;
    cwd = mkdtempSync(join(tmpdir(), 'persona-refine-terms-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('imports a CSV (quoted commas, quotes and line breaks, replaces split on |) as the whole term base, the other attributes kept', async () => {
    const result = await cli('terms', 'import', file('terms.csv', CSV), '--persona', personaId);
    expect(result).toEqual({ code: 0, stdout: `4 terms imported into ${personaId}\n`, stderr: '' });
    const persona = await client.personas.get(personaId);
    expect(persona.attributes).toEqual({ tone: 'warm', terms: TERMS });
    expect((await client.personas.versions.list(personaId)).length).toBe(2);
  });

  it('exports the term base as RFC 4180 CSV, to stdout or a file, and the export imports back unchanged', async () => {
    const expected = [
      'term,use,replaces,suggest,caseSensitive,forms,note',
      'sign-in,preferred,login|log-in|Log In,,,,',
      'utilize,forbidden,,use,,exact,"Plain words, always"',
      'Acme Cloud,keep,,,true,,"Product name:\r\nnever ""translated"""',
      'OK,preferred,okay,,false,inflected,',
      '',
    ].join('\r\n');
    const printed = await cli('terms', 'export', '--persona', personaId);
    expect(printed).toEqual({ code: 0, stdout: expected, stderr: '' });
    const written = await cli('terms', 'export', '--persona', personaId, '--out', 'out.csv');
    expect(written).toEqual({ code: 0, stdout: '', stderr: '4 terms written to out.csv\n' });
    expect(readFileSync(join(cwd, 'out.csv'), 'utf8')).toBe(expected);
    expect((await cli('terms', 'import', 'out.csv', '--persona', personaId)).code).toBe(0);
    expect((await client.personas.get(personaId)).attributes).toEqual({ tone: 'warm', terms: TERMS });
  });

  it.each([
    ['a use of none of the three', 'term,use\nfine,keep\nbad,banned\n', 'line 3, column 2 (use): use must be one of preferred, forbidden, keep, found "banned"'],
    ['an unknown column', 'term,use,colour\n', 'line 1, column 3: unknown column "colour"; the columns are term, use, replaces, suggest, caseSensitive, forms, note'],
    ['a header without use', 'term,note\nx,y\n', 'line 1, column 3 (use): the header must name the column "use"'],
    ['a row with a missing field', 'term,use,note\nfine,keep,a\nshort,keep\n', 'line 3, column 3 (note): expected 3 fields as in the header, found 2'],
    ['a quoted field never closed', 'term,use,note\nfine,keep,"open\nand on\n', 'line 2, column 3: a quoted field is not closed'],
    ['a stray quote', 'term,use\nfi"ne,keep\n', 'line 2, column 1: a quote inside an unquoted field (quote the whole field and write the quote twice)'],
    ['replaces on a forbidden term', 'term,use,replaces\nbad,forbidden,worse\n', 'line 2, column 3 (replaces): only a preferred term replaces words; this one is forbidden'],
    ['caseSensitive that is no boolean', 'term,use,caseSensitive\nx,keep,yes\n', 'line 2, column 3 (caseSensitive): caseSensitive must be true, false or empty, found "yes"'],
    ['a term too long for the service', `use,term\nkeep,fine\nkeep,${'x'.repeat(101)}\n`, 'line 3, column 2 (term): attributes.terms.1.term must be at most 100 characters'],
    ['a replaced word too long for the service', `term,use,replaces\nx,preferred,ok|${'y'.repeat(101)}\n`, 'line 2, column 3 (replaces): attributes.terms.0.replaces.1 must be at most 100 characters'],
  ])('refuses %s with exit 2 naming the line and column, and writes nothing', async (_, text, message) => {
    const before = await client.personas.get(personaId);
    const result = await cli('terms', 'import', file('bad.csv', text), '--persona', personaId);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `persona-refine: bad.csv ${message}\n` });
    expect((await client.personas.get(personaId)).etag).toBe(before.etag);
  });

  it('an empty term base (the header alone) removes the persona\'s terms', async () => {
    const id = (await client.personas.create({ name: 'Emptied', attributes: { terms: [{ term: 'a', use: 'keep' }] } })).id;
    expect(await cli('terms', 'import', file('empty.csv', 'term,use\r\n'), '--persona', id)).toEqual({ code: 0, stdout: `0 terms imported into ${id}\n`, stderr: '' });
    expect((await client.personas.get(id)).attributes).toEqual({});
    expect(await cli('terms', 'export', '--persona', id)).toEqual({ code: 0, stdout: 'term,use,replaces,suggest,caseSensitive,forms,note\r\n', stderr: '' });
  });

  it('is called wrongly without --persona or with two files (exit 2)', async () => {
    expect((await cli('terms', 'import', 'terms.csv')).code).toBe(2);
    expect((await cli('terms', 'import', 'a.csv', 'b.csv', '--persona', personaId)).code).toBe(2);
    expect((await cli('terms', 'export')).code).toBe(2);
    expect((await cli('terms', 'frobnicate')).stderr).toContain('unknown terms command "frobnicate"');
  });
});
