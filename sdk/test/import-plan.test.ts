import { describe, expect, it } from 'vitest';
import { detailLines, patchFor, personasWithFileSamples, planImport } from '../src/cli/import-plan.js';
import { ABSENT, diffJson, formatChange } from '../src/cli/json-diff.js';
import type { PersonaFile } from '../src/cli/persona-files.js';

const server = [
  { id: 'p1', name: 'Bot', attributes: { tone: 'warm', examples: [{ before: 'a', after: 'b' }] } },
  { id: 'p2', name: 'Other', attributes: {} },
];
const file = (path: string, persona: { id?: string; name: string; attributes?: Record<string, unknown> }): PersonaFile => ({
  path,
  persona: { attributes: {}, ...persona },
});

describe('planImport', () => {
  it('does not count a different key order as a change', () => {
    const [entry] = planImport([file('a.json', { id: 'p1', name: 'Bot', attributes: { examples: [{ after: 'b', before: 'a' }], tone: 'warm' } })], server);
    expect(entry!.action).toBe('unchanged');
  });

  it('treats a file as the whole persona: attributes it leaves out are removed', () => {
    const [entry] = planImport([file('a.json', { id: 'p1', name: 'Bot' })], server);
    expect(entry).toMatchObject({ action: 'update' });
    expect(patchFor(entry as Extract<typeof entry, { action: 'update' }>)).toEqual({ attributes: {} });
  });

  it('patches only the fields that changed', () => {
    const [entry] = planImport([file('a.json', { id: 'p2', name: 'Other renamed' })], server);
    expect(patchFor(entry as Extract<typeof entry, { action: 'update' }>)).toEqual({ name: 'Other renamed' });
  });

  it('matches by name when the file has no id, and creates when no persona has that name', () => {
    const plan = planImport([file('a.json', { name: 'Other' }), file('b.json', { name: 'Brand new', attributes: { tone: 'x' } })], server);
    expect(plan.map((entry) => entry.action)).toEqual(['unchanged', 'create']);
    expect(plan[1]).toMatchObject({ changes: [{ path: 'name', after: 'Brand new' }, { path: 'attributes', after: { tone: 'x' } }] });
  });

  it('passes a file\'s problem through as an error entry', () => {
    expect(planImport([{ path: 'x.json', problem: 'not valid JSON' }], server)).toEqual([{ action: 'error', path: 'x.json', problem: 'not valid JSON' }]);
  });
});

describe('planImport with samples', () => {
  const samples = new Map([['p1', [{ name: 'a', content: 'A' }, { content: 'B', expect: { notContains: ['x'] } }]]]);
  const withSamples = (fileSamples: { name?: string; content: string; expect?: { notContains?: string[] } }[]) =>
    planImport([{ path: 'a.json', persona: { id: 'p1', name: 'Bot', attributes: server[0]!.attributes, samples: fileSamples } }], server, samples)[0]!;

  it('compares samples whole and key order aside; the same samples in another order is a change', () => {
    expect(withSamples([{ content: 'A', name: 'a' }, { expect: { notContains: ['x'] }, content: 'B' }]).action).toBe('unchanged');
    const reordered = withSamples([{ content: 'B', expect: { notContains: ['x'] } }, { name: 'a', content: 'A' }]);
    expect(detailLines(reordered)).toEqual(['update     a.json  "Bot" (samples: reordered)', '    samples: reordered']);
    expect(patchFor(reordered as Extract<typeof reordered, { action: 'update' }>)).toEqual({});
  });

  it('an edited sample is the old one removed and the new one added, as the server stores it', () => {
    const edited = withSamples([{ name: 'a', content: 'A' }, { content: 'B', expect: { notContains: ['y'] } }, { content: 'C' }]);
    expect(detailLines(edited)).toEqual([
      'update     a.json  "Bot" (samples: 2 added, 1 removed)',
      '    samples: - {"content":"B","expect":{"notContains":["x"]}}',
      '    samples: + {"content":"B","expect":{"notContains":["y"]}}',
      '    samples: + {"content":"C"}',
    ]);
    expect(edited).toMatchObject({ samples: { current: samples.get('p1') } });
  });

  it('a file without samples compares none, whatever the persona has', () => {
    expect(planImport([file('a.json', { id: 'p1', name: 'Bot', attributes: server[0]!.attributes })], server, samples)[0]!.action).toBe('unchanged');
  });

  it('asks for the samples of the personas that files with samples describe, only', () => {
    const files: PersonaFile[] = [
      { path: 'a.json', persona: { name: 'Bot', attributes: {}, samples: [] } },
      { path: 'b.json', persona: { id: 'p2', name: 'Other', attributes: {} } },
      { path: 'c.json', persona: { name: 'New', attributes: {}, samples: [{ content: 'x' }] } },
    ];
    expect(personasWithFileSamples(files, server)).toEqual(['p1']);
  });
});

describe('diffJson', () => {
  it('names nested paths, quoting keys that are not identifiers, and compares arrays whole', () => {
    const changes = diffJson(
      { attributes: { 'sign off': 'Bye', list: [1, 2], nested: { deep: 1 } } },
      { attributes: { 'sign off': 'Ciao', list: [2, 1], nested: { deep: 1, added: true } } },
    );
    expect(changes.map(formatChange)).toEqual([
      'attributes["sign off"]: "Bye" → "Ciao"',
      'attributes.list: [1,2] → [2,1]',
      'attributes.nested.added: (absent) → true',
    ]);
  });

  it('shows removals', () => {
    expect(diffJson({ a: 1 }, {}).map(formatChange)).toEqual(['a: 1 → (absent)']);
    expect(diffJson(ABSENT, ABSENT)).toEqual([]);
  });
});
