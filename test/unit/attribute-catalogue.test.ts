import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { ATTRIBUTE_CATALOGUE, ATTRIBUTE_KEYS, INVALID, parseAttributes } from '../../src/personas/catalogue/index.js';
import { buildSystemMessage } from '../../src/refine/prompt.js';
import { rulesFromAttributes } from '../../src/rules/index.js';
import { PersonaAttributes } from '../../src/schemas/persona.js';

const root = resolve(import.meta.dirname, '../..');
const ajv = new Ajv({ strict: false });
const validAttributes = ajv.compile(PersonaAttributes);

/** Random JSON, biased towards the shapes the catalogue knows so both sides of each check are hit. */
const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(true, false, 'none', ' NONE ', '', '  ', '120', 0, -3, 2.5, 120, 1, Number.MAX_SAFE_INTEGER + 1, null, [], {}),
  fc.array(fc.oneof(fc.string(), fc.constantFrom('synergy', 'Synergy', ' a  b ', '')), { maxLength: 4 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
  fc.dictionary(fc.constantFrom('avoid', 'maxWords', 'emoji', 'tone'), fc.boolean(), { maxKeys: 3 }),
  fc.array(fc.record({ before: fc.string(), after: fc.string() }, { requiredKeys: ['before'] }), { maxLength: 2 }),
  fc.array(
    fc.record(
      {
        term: fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('sign-in', ' ', '😀'.repeat(100), 'x'.repeat(101)), fc.integer()),
        use: fc.oneof(fc.constantFrom('preferred', 'forbidden', 'keep'), fc.string()),
        replaces: fc.oneof(fc.array(fc.constantFrom('login', '', ' ', 'y'.repeat(101)), { maxLength: 3 }), fc.constant('login')),
        suggest: fc.oneof(fc.string(), fc.constant(3)),
        caseSensitive: fc.oneof(fc.boolean(), fc.constant('true')),
        forms: fc.constantFrom('exact', 'inflected', 'stemmed'),
        note: fc.oneof(fc.string(), fc.constant('n'.repeat(501))),
        colour: fc.string(),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 3 },
  ),
);

describe('the attribute catalogue', () => {
  it("accepts exactly the values its OpenAPI schema accepts, key by key (null: not set)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ATTRIBUTE_KEYS), jsonValue, (key, value) => {
        const schemaAccepts = validAttributes({ [key]: value });
        const parsed = parseAttributes({ [key]: value });
        expect(parsed.invalid.length === 0).toBe(schemaAccepts);
        if (value !== null) expect(ATTRIBUTE_CATALOGUE[key].shape.parse(value) !== INVALID).toBe(schemaAccepts);
      }),
      { numRuns: 3000 },
    );
  });

  it('feeds a rule exactly when the system message states the key, and the reverse', () => {
    const ruleSet = (attributes: Record<string, unknown>) => {
      const rules = rulesFromAttributes(attributes);
      return {
        vocabulary: rules.vocabulary.length > 0,
        casing: rules.casing.length > 0,
        avoid: rules.avoid.length > 0,
        emoji: rules.stripEmoji,
        signOff: rules.signOff !== null,
        maxWords: rules.maxWords !== null,
        maxSentences: rules.maxSentences !== null,
      };
    };
    const unset = buildSystemMessage({ name: 'P', attributes: {} });
    fc.assert(
      fc.property(fc.constantFrom('vocabulary', 'casing', 'avoid', 'signOff', 'maxWords', 'maxSentences' as const), jsonValue, (key, value) => {
        const stated = buildSystemMessage({ name: 'P', attributes: { [key]: value } }) !== unset;
        expect(ruleSet({ [key]: value })[key]).toBe(stated);
      }),
      { numRuns: 2000 },
    );
    // Emoji phrases ("sparingly") are guidance only; "never" is both said and enforced.
    fc.assert(
      fc.property(jsonValue, (emoji) => {
        const saysNever = buildSystemMessage({ name: 'P', attributes: { emoji } }).includes('Emoji: never use emoji.');
        expect(ruleSet({ emoji }).emoji).toBe(saysNever);
      }),
      { numRuns: 1000 },
    );
  });

  it('documents every key in OpenAPI with its description, shapes (null included) and example', () => {
    const properties = (PersonaAttributes as unknown as { properties: Record<string, { description: string; anyOf: unknown[]; examples: unknown[] }> }).properties;
    expect(Object.keys(properties)).toEqual(ATTRIBUTE_KEYS);
    for (const key of ATTRIBUTE_KEYS) {
      const property = properties[key]!;
      expect(property.description).toContain(ATTRIBUTE_CATALOGUE[key].description);
      expect(property.anyOf).toContainEqual({ type: 'null' });
      expect(validAttributes({ [key]: property.examples[0] }), key).toBe(true);
    }
    expect((PersonaAttributes as unknown as { additionalProperties: unknown }).additionalProperties).toBe(true);
  });

  it('is the list the attribute table of docs/rules-and-attributes.md shows', () => {
    const doc = readFileSync(join(root, 'docs/rules-and-attributes.md'), 'utf8');
    const start = doc.indexOf('## Persona attributes');
    const table = doc.slice(start, doc.indexOf('\n## ', start + 1));
    const keys = [...table.matchAll(/^\| ((?:`\w+`(?:, )?)+) \|/gm)].flatMap((row) => [...row[1]!.matchAll(/`(\w+)`/g)].map((match) => match[1]));
    expect(keys.sort()).toEqual([...ATTRIBUTE_KEYS].sort());
    expect(table).toContain('src/personas/catalogue/attributes.ts');
  });

  it('imports nothing but its own pure modules, so the studio can bundle it', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)) {
        expect(specifier, `${relative(root, file)} imports ${specifier}`).toMatch(/^\.\.?\//);
        visit(resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')));
      }
    };
    visit(join(root, 'src/personas/catalogue/index.ts'));
    expect(seen.size).toBeGreaterThan(3);
  });
});
