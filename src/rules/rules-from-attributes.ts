/**
 * Turns a persona's free-form `attributes` into validated rules. Never throws: a key
 * of the wrong type, or an entry of the wrong type inside a list, is ignored.
 *
 * Opting out (the one place this is decided):
 * - `"enforce": false` at the top level disables every rule;
 * - `"enforce": { "avoid": false, "maxWords": false }` disables single rules, keyed by
 *   rule id. Only the boolean `false` disables; other values are ignored.
 * Per-rule object forms such as `"avoid": { "terms": [...], "enforce": false }` are
 * deliberately not supported: `{ "terms": … }` would be ambiguous with a vocabulary
 * entry for the word "terms", and one switch in one place is easier to audit.
 */
import { RULE_IDS, type PersonaRules, type RuleId, type VocabularyEntry } from './types.js';
import { isJsonObject } from '../json-object.js';

const NO_RULES: PersonaRules = {
  vocabulary: [],
  casing: [],
  avoid: [],
  stripEmoji: false,
  signOff: null,
  maxWords: null,
  maxSentences: null,
};

export function rulesFromAttributes(attributes: Record<string, unknown>): PersonaRules {
  if (!isJsonObject(attributes)) return NO_RULES;
  const enabled = enabledRules(attributes['enforce']);
  const on = (rule: RuleId) => enabled.has(rule);
  return {
    vocabulary: on('vocabulary') ? parseVocabulary(attributes['vocabulary']) : [],
    casing: on('casing') ? parseTerms(attributes['casing']) : [],
    avoid: on('avoid') ? parseTerms(attributes['avoid']) : [],
    stripEmoji: on('emoji') && wantsNoEmoji(attributes['emoji']),
    signOff: on('signOff') ? parseSignOff(attributes['signOff']) : null,
    maxWords: on('maxWords') ? parseLimit(attributes['maxWords']) : null,
    maxSentences: on('maxSentences') ? parseLimit(attributes['maxSentences']) : null,
  };
}

export function hasRules(rules: PersonaRules): boolean {
  return (
    rules.vocabulary.length > 0 ||
    rules.casing.length > 0 ||
    rules.avoid.length > 0 ||
    rules.stripEmoji ||
    rules.signOff !== null ||
    rules.maxWords !== null ||
    rules.maxSentences !== null
  );
}

function enabledRules(enforce: unknown): Set<RuleId> {
  if (enforce === false) return new Set();
  const enabled = new Set<RuleId>(RULE_IDS);
  if (isJsonObject(enforce)) {
    for (const rule of RULE_IDS) if (enforce[rule] === false) enabled.delete(rule);
  }
  return enabled;
}

function parseVocabulary(value: unknown): VocabularyEntry[] {
  if (!isJsonObject(value)) return [];
  const entries: VocabularyEntry[] = [];
  const seen = new Set<string>();
  for (const [rawFrom, rawTo] of Object.entries(value)) {
    if (typeof rawTo !== 'string') continue;
    const from = cleanTerm(rawFrom);
    const to = cleanTerm(rawTo);
    if (from === '' || to === '' || from === to || seen.has(from.toLowerCase())) continue;
    seen.add(from.toLowerCase());
    entries.push({ from, to });
  }
  return entries;
}

/** A list of strings, or a single string; duplicates (ignoring case) keep the first spelling. */
function parseTerms(value: unknown): string[] {
  const candidates = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (typeof candidate !== 'string') continue;
    const term = cleanTerm(candidate);
    if (term === '' || seen.has(term.toLowerCase())) continue;
    seen.add(term.toLowerCase());
    terms.push(term);
  }
  return terms;
}

function wantsNoEmoji(value: unknown): boolean {
  return value === false || (typeof value === 'string' && value.trim().toLowerCase() === 'none');
}

function parseSignOff(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const signOff = value.replace(/\r\n?/g, '\n').trim();
  return signOff === '' ? null : signOff;
}

function parseLimit(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** Terms are compared with NFC text, the form almost all text arrives in. */
function cleanTerm(term: string): string {
  return term.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

