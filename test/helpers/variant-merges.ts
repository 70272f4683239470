/**
 * For each kind of attribute a variant may set: a base value, a variant's value, and what merging
 * them gives (docs/rules-and-attributes.md, "Variants"). Read by the merge's unit test and by the
 * HTTP test that stores them on both engines and reads the merge back.
 */
export const MERGES: Record<string, { base: unknown; variant: unknown; merged: unknown }> = {
  description: { base: 'Acme support.', variant: 'Acme-Support.', merged: 'Acme-Support.' },
  tone: { base: ['warm', 'direct'], variant: 'formal', merged: 'formal' },
  formality: { base: 'casual', variant: 'formal', merged: 'formal' },
  audience: { base: 'owners', variant: ['developers'], merged: ['developers'] },
  personality: { base: ['helpful'], variant: ['precise'], merged: ['precise'] },
  readingLevel: { base: 'grade 8', variant: 'grade 10', merged: 'grade 10' },
  language: { base: 'English', variant: 'German', merged: 'German' },
  locale: { base: 'en-US', variant: 'de-DE', merged: 'de-DE' },
  length: { base: 'short', variant: 'one line', merged: 'one line' },
  emoji: { base: true, variant: false, merged: false },
  vocabulary: {
    base: { customers: 'members', Utilize: 'use' },
    variant: { utilize: 'employ', login: 'sign-in' },
    merged: { customers: 'members', utilize: 'employ', login: 'sign-in' },
  },
  avoid: { base: ['synergy'], variant: 'leverage', merged: ['synergy', 'leverage'] },
  casing: { base: 'GitHub', variant: ['Acme Cloud'], merged: ['GitHub', 'Acme Cloud'] },
  terms: {
    base: [{ term: 'sign in', use: 'preferred', replaces: ['log in'] }, { term: 'Acme', use: 'keep' }],
    variant: [{ term: 'Sign In', use: 'preferred', replaces: ['anmelden'] }, { term: 'Kunde', use: 'forbidden' }],
    merged: [{ term: 'Acme', use: 'keep' }, { term: 'Sign In', use: 'preferred', replaces: ['anmelden'] }, { term: 'Kunde', use: 'forbidden' }],
  },
  maxWords: { base: 120, variant: 60, merged: 60 },
  maxSentences: { base: 6, variant: 3, merged: 3 },
  signOff: { base: 'Cheers', variant: 'Viele Grüße', merged: 'Viele Grüße' },
  examples: {
    base: [{ before: 'Resolved.', after: 'All fixed!' }],
    variant: [{ before: 'Erledigt.', after: 'Alles repariert!' }],
    merged: [{ before: 'Erledigt.', after: 'Alles repariert!' }],
  },
  instructions: { base: 'Be brief.', variant: 'Be thorough.', merged: 'Be thorough.' },
  enforce: { base: { avoid: false, maxWords: 'recommended' }, variant: { maxWords: 'required' }, merged: { avoid: false, maxWords: 'required' } },
  minScore: { base: 80, variant: 90, merged: 90 },
};
