/**
 * The four tools, each declared once: its input and output JSON Schemas beside what it does. A
 * tool returns its structured result; serve.ts wraps it (or its failure) as MCP's answer.
 */
import type { PersonaRefine, PersonaLabels } from '../../index.js';
import { forEachBounded } from '../bounded-pool.js';
import { providerKeyFor } from './provider-keys.js';
import { type ToolInput, textArguments } from './tool-input.js';

export interface ToolScope {
  client: PersonaRefine;
  env: Record<string, string | undefined>;
  /** Aborted when the host cancels the call or goes away: the provider call stops too. */
  signal: AbortSignal;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: ToolInput<unknown>['schema'];
  outputSchema: { type: 'object'; [keyword: string]: unknown };
  call(given: Record<string, unknown> | undefined, scope: ToolScope): Promise<Record<string, unknown>>;
}

/** Binds a tool's run to its input's check, keeping the arguments typed inside. */
function defineTool<Arguments>(
  definition: Omit<Tool, 'inputSchema' | 'call'> & { input: ToolInput<Arguments>; run(args: Arguments, scope: ToolScope): Promise<Record<string, unknown>> },
): Tool {
  const { input, run, ...described } = definition;
  return { ...described, inputSchema: input.schema, call: (given, scope) => run(input.read(given), scope) };
}

/** Labels at once per persona listed: a page of personas is not a burst of hundreds of calls. */
const LABEL_CONCURRENCY = 4;

const personaId = { description: 'The persona\'s id, as list_personas gives it', required: true } as const;
const labels = { type: 'object', additionalProperties: { type: 'integer' }, description: 'Each label and the version it points at, e.g. {"production": 3}' };
const personaSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    attributes: { type: 'object', description: 'Tone, audience, vocabulary, banned phrases, rules such as maxWords, examples…' },
  },
  required: ['id', 'name', 'attributes'],
} as const;

const listPersonas = defineTool({
  name: 'list_personas',
  title: 'List personas',
  description: 'Lists the personas (voices) of the persona-refine account: the id, name and labels of each. Use an id with get_persona, refine or check.',
  input: textArguments({}),
  outputSchema: {
    type: 'object',
    properties: {
      personas: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, labels }, required: ['id', 'name', 'labels'] } },
    },
    required: ['personas'],
  },
  async run(_args, { client, signal }) {
    const personas = await client.personas.list({ signal });
    const labelsOf = new Map<string, PersonaLabels>();
    await forEachBounded(personas, LABEL_CONCURRENCY, async ({ id }) => {
      labelsOf.set(id, await client.personas.labels.get(id, { signal }));
    });
    return { personas: personas.map(({ id, name }) => ({ id, name, labels: labelsOf.get(id) })) };
  },
});

const getPersona = defineTool({
  name: 'get_persona',
  title: 'Get a persona',
  description: 'One persona: its name and its attributes, which describe the voice (tone, audience, vocabulary, banned phrases, examples) and set its rules (maxWords, signOff…).',
  input: textArguments({ personaId }),
  outputSchema: personaSchema,
  async run(args, { client, signal }) {
    const { id, name, attributes } = await client.personas.get(args.personaId, { signal });
    return { id, name, attributes };
  },
});

const refine = (defaultProvider: string) =>
  defineTool({
    name: 'refine',
    title: 'Refine text in a persona\'s voice',
    description:
      'Rewrites text in a persona\'s voice and applies its rules. Returns the rewritten text (response), the rules it still breaks ' +
      '(violations: rule → count, {} when none) and how well it matches the persona (score, 0–100). ' +
      `Without provider, ${defaultProvider === 'rules' ? '"rules": the persona\'s rules are applied without a model' : `"${defaultProvider}"`}.`,
    input: textArguments({
      personaId,
      content: { description: 'The text to rewrite', required: true },
      provider: { description: `The provider that rewrites it (openai, anthropic, google…; "rules" applies only the persona's rules, without a model). Default: ${defaultProvider}` },
      model: { description: 'Overrides the provider\'s default model' },
      personaLabel: { description: 'Use the persona version this label points at (e.g. production) instead of the newest' },
    }),
    outputSchema: {
      type: 'object',
      properties: {
        response: { type: 'string', description: 'The rewritten text' },
        violations: { type: 'object', additionalProperties: { type: 'integer' }, description: 'The persona\'s rules still broken, e.g. {"maxWords": 1}' },
        score: { type: 'number', description: 'How well the text matches the persona, 0–100' },
        personaVersion: { type: 'integer' },
        provider: { type: 'object', properties: { id: { type: 'string' }, model: { type: 'string' } }, required: ['id'], description: 'Who answered: a fallback when it did; no model for rules' },
      },
      required: ['response', 'violations', 'personaVersion', 'provider'],
    },
    async run(args, { client, env, signal }) {
      const provider = args.provider ?? defaultProvider;
      const providerApiKey = await providerKeyFor(client, provider, env, signal);
      const result = await client.refine(
        {
          provider,
          personaId: args.personaId,
          content: args.content,
          ...(providerApiKey ? { providerApiKey } : {}),
          ...(args.model ? { model: args.model } : {}),
          ...(args.personaLabel ? { personaLabel: args.personaLabel } : {}),
        },
        { signal },
      );
      return {
        response: result.response,
        violations: { ...result.violations },
        ...(result.score === undefined ? {} : { score: result.score }),
        personaVersion: result.personaVersion,
        provider: { ...result.provider },
      };
    },
  });

const check = defineTool({
  name: 'check',
  title: 'Check text against a persona',
  description:
    'Scores text against a persona without changing it: passed, score (0–100) and each rule it breaks. With original (the text it ' +
    'was rewritten from), also reports the numbers, links, e-mail addresses, code and placeholders of original that it lost.',
  input: textArguments({
    personaId,
    content: { description: 'The text to check', required: true },
    original: { description: 'The text content was rewritten from, whose facts it must keep' },
  }),
  outputSchema: {
    type: 'object',
    properties: {
      passed: { type: 'boolean', description: 'No required rule broken, and the persona\'s minScore reached' },
      score: { type: 'number' },
      violations: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            rule: { type: 'string' },
            severity: { type: 'string', enum: ['required', 'recommended'] },
            message: { type: 'string' },
            start: { type: 'integer', description: 'Offset in content (for preserve, in original), UTF-16 code units' },
            end: { type: 'integer' },
          },
          required: ['rule', 'severity', 'message', 'start', 'end'],
        },
      },
      personaVersion: { type: 'integer' },
    },
    required: ['passed', 'score', 'violations', 'personaVersion'],
  },
  async run(args, { client, signal }) {
    const verdict = await client.check(
      { personaId: args.personaId, content: args.content, ...(args.original === undefined ? {} : { original: args.original }) },
      { signal },
    );
    return { passed: verdict.passed, score: verdict.score, violations: verdict.violations, personaVersion: verdict.personaVersion };
  },
});

export function personaTools(defaultProvider: string): Tool[] {
  return [listPersonas, getPersona, refine(defaultProvider), check];
}
