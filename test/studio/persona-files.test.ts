/** The studio's persona files: the CLI's format, and what an import would do. */
import { describe, expect, it } from 'vitest';
import type { Persona } from '../../studio/src/api/types.js';
import { fileNameFor, formatPersonaCollection, formatPersonaFile, planImport, readPersonaFile } from '../../studio/src/personas/persona-files.js';

const persona = (id: string, name: string, attributes: Record<string, unknown> = {}): Persona => ({ id, name, attributes });

describe('persona files', () => {
  it('writes {id, name, attributes} in that order, two-space indent, trailing newline', () => {
    const text = formatPersonaFile({ attributes: { b: 1, a: 2 }, name: 'N', id: 'p1' } as Persona);
    expect(text).toBe('{\n  "id": "p1",\n  "name": "N",\n  "attributes": {\n    "b": 1,\n    "a": 2\n  }\n}\n');
    expect(formatPersonaCollection([persona('p1', 'N')])).toBe(`${JSON.stringify([persona('p1', 'N')], null, 2)}\n`);
  });

  it('names a file as the CLI does: slug of the name, last 8 characters of the id', () => {
    expect(fileNameFor(persona('0198c3a4-7b2e-7c11-9d7a-5f2e8b1c4d3e', 'Café Crème: EU support!'))).toBe('cafe-creme-eu-support.8b1c4d3e.json');
    expect(fileNameFor(persona('abc', '!!!'))).toBe('persona.abc.json');
  });

  it('reads one persona or an array, and says what is wrong with anything else', () => {
    expect(readPersonaFile('a.json', '{"name":"  Bot ","attributes":{"x":1}}')).toEqual([{ source: 'a.json', desired: { name: 'Bot', attributes: { x: 1 } } }]);
    expect(readPersonaFile('b.json', '[{"id":"p1","name":"A"},{"name":""}]')).toEqual([
      { source: 'b.json [1]', desired: { id: 'p1', name: 'A', attributes: {} } },
      { source: 'b.json [2]', problem: '"name" must be a non-empty string' },
    ]);
    expect(readPersonaFile('c.json', '{')[0]!.problem).toMatch(/^is not valid JSON/);
    expect(readPersonaFile('d.json', '{"name":"A","etag":"1"}')[0]!.problem).toBe('has unknown field "etag"; a persona has only id, name, attributes and samples');
    expect(readPersonaFile('e.json', '{"name":"A","attributes":[]}')[0]!.problem).toBe('"attributes" must be a JSON object');
    expect(readPersonaFile('f.json', '[]')[0]!.problem).toBe('holds an empty list');
  });

  it('checks a CLI file\'s samples as the CLI does, and leaves them out of what it imports', () => {
    const text = JSON.stringify({ id: 'p1', name: 'A', attributes: {}, samples: [{ name: 'hi', content: 'Hello.', expect: { contains: ['Hello'] } }] });
    expect(readPersonaFile('a.json', text)).toEqual([{ source: 'a.json', desired: { id: 'p1', name: 'A', attributes: {} } }]);
    expect(readPersonaFile('b.json', '{"name":"A","samples":[{"id":"s1","content":"Hi"}]}')[0]!.problem).toBe(
      '"samples"[0] has an "id": sample ids are the server\'s (an unchanged sample keeps its own); leave it out',
    );
    expect(readPersonaFile('c.json', '{"name":"A","samples":{}}')[0]!.problem).toBe('"samples" must be a list of { "name"?, "content", "expect"? }');
  });

  it('matches by id (an id not on the server is a problem, not a match by name), else by name, else creates; unchanged personas are left alone', () => {
    const server = [persona('p1', 'One', { a: 1 }), persona('p2', 'Two'), persona('p3', 'Three', { t: 1 })];
    const items = [
      ...readPersonaFile('1.json', JSON.stringify({ id: 'p1', name: 'Uno', attributes: { a: 1 } })),
      ...readPersonaFile('2.json', JSON.stringify({ id: 'gone', name: 'Two', attributes: { b: 2 } })),
      ...readPersonaFile('3.json', JSON.stringify({ name: 'Three', attributes: { t: 1 } })),
      ...readPersonaFile('4.json', JSON.stringify({ name: 'Four' })),
    ];
    expect(planImport(items, server).map((step) => [step.source, step.action])).toEqual([
      ['1.json', 'update'],
      ['2.json', 'error'],
      ['3.json', 'unchanged'],
      ['4.json', 'create'],
    ]);
  });

  it('refuses to guess between personas of the same name, or to apply two files to one persona', () => {
    const server = [persona('p1', 'Twin'), persona('p2', 'Twin'), persona('p3', 'Solo')];
    const items = [
      ...readPersonaFile('twin.json', '{"name":"Twin"}'),
      ...readPersonaFile('a.json', '{"id":"p3","name":"Solo","attributes":{"x":1}}'),
      ...readPersonaFile('b.json', '{"name":"Solo","attributes":{"x":2}}'),
    ];
    expect(planImport(items, server)).toEqual([
      { action: 'error', source: 'twin.json', problem: '2 personas are named "Twin"; add the "id" of the one you mean' },
      { action: 'update', source: 'a.json', desired: { id: 'p3', name: 'Solo', attributes: { x: 1 } }, current: server[2] },
      { action: 'error', source: 'b.json', problem: 'describes the same persona as a.json' },
    ]);
  });
});
