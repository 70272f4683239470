/**
 * The preview's Generate mode: a prompt in, the persona's answer out, through the OpenAI-compatible
 * route (the persona applied while the model writes), with the same provider, model and key as
 * the refine mode.
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { GenerateOutcome, GenerateRequest } from '../api/chat.js';
import type { StudioApi } from '../api/client.js';
import { type Provider, providerNames } from '../api/providers.js';
import type { Persona } from '../api/types.js';
import { describedBy } from '../fields/field-parts.js';
import { useScopes } from '../scopes.js';
import { RefineFailure, Spend, Timing } from './refine-output.js';
import { ProviderFields, type RefineSettings } from './refine-settings.js';
import { ProblemLine } from '../views/status-lines.js';

interface GeneratePanelProps {
  api: StudioApi;
  persona: Persona;
  settings: RefineSettings;
  providers: readonly Provider[] | undefined;
  onSettings: (settings: RefineSettings) => void;
  /** The persona's variant to generate in; undefined: the persona itself. */
  variant?: string;
}

/** The request for one prompt, or what is missing, in words. */
export function generateRequestFor(
  settings: RefineSettings,
  prompt: string,
  personaId: string,
  providers: readonly Provider[],
  variant?: string,
): GenerateRequest | string {
  const provider = settings.provider.trim();
  if (prompt.trim() === '') return 'Type a prompt first.';
  if (provider === '') return 'Choose a provider first.';
  const listed = providers.find((candidate) => candidate.id === provider);
  if (listed?.defaultModel === null) return `Generating needs a model: choose a provider other than ${listed.name}.`;
  if (settings.providerKey === '' && listed?.requiresKey !== false) return `Type your ${listed?.name ?? provider} API key first.`;
  const model = settings.model.trim();
  return {
    personaId,
    model: model === '' ? provider : `${provider}/${model}`,
    prompt,
    ...(variant === undefined ? {} : { variant }),
    ...(settings.providerKey === '' || listed?.requiresKey === false ? {} : { providerApiKey: settings.providerKey }),
  };
}

const PROMPT_HINT = 'What to ask the model. The persona’s instructions go first, and its rules apply to the answer.';

export function GeneratePanel({ api, persona, settings, providers, onSettings, variant }: GeneratePanelProps) {
  const [prompt, setPrompt] = useState('');
  const [stream, setStream] = useState(false);
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<GenerateOutcome | { error: ApiError } | undefined>(undefined);
  /** While a stream runs (and after Stop): the text so far. */
  const [streamed, setStreamed] = useState<{ text: string; stopped: boolean } | undefined>(undefined);
  const stopper = useRef<AbortController | undefined>(undefined);
  const cannotGenerate = useScopes().lacking('refine');

  const generate = async () => {
    const request = generateRequestFor(settings, prompt, persona.id, providers ?? [], variant);
    setProblem(typeof request === 'string' ? request : undefined);
    if (typeof request === 'string') return;
    setRunning(true);
    setResult(undefined);
    setStreamed(stream ? { text: '', stopped: false } : undefined);
    const controller = new AbortController();
    stopper.current = controller;
    try {
      const onText = stream ? (text: string) => setStreamed({ text, stopped: false }) : undefined;
      const outcome = await api.generate(request, controller.signal, onText);
      setStreamed(undefined);
      setResult(outcome);
    } catch (error) {
      // Stop: the text so far stays on screen, marked as stopped.
      if (controller.signal.aborted) setStreamed((shown) => ({ text: shown?.text ?? '', stopped: true }));
      else if (error instanceof ApiError) {
        setStreamed(undefined);
        setResult({ error });
      } else throw error;
    } finally {
      stopper.current = undefined;
      setRunning(false);
    }
  };

  return (
    <>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!running) void generate();
        }}
      >
        <div class="field">
          <label for="generate-prompt">Prompt</label>
          <p id="generate-prompt-hint" class="hint">
            {PROMPT_HINT}
          </p>
          <textarea
            id="generate-prompt"
            rows={5}
            value={prompt}
            aria-describedby={describedBy('generate-prompt', PROMPT_HINT)}
            onInput={(event) => setPrompt(event.currentTarget.value)}
          />
        </div>
        <ProviderFields settings={settings} providers={providers} onChange={onSettings} />
        <div class="field checkbox">
          <input id="generate-stream" type="checkbox" checked={stream} onChange={(event) => setStream(event.currentTarget.checked)} />
          <label for="generate-stream">Stream the answer as it is written (no repair call)</label>
        </div>
        <div class="actions">
          <button type="submit" disabled={running || cannotGenerate !== undefined} title={cannotGenerate}>
            {running ? 'Generating…' : 'Generate'}
          </button>
          {cannotGenerate && <span class="hint">{cannotGenerate}</span>}
          {running && stream && (
            <button type="button" onClick={() => stopper.current?.abort()}>
              Stop
            </button>
          )}
        </div>
      </form>
      <ProblemLine problem={problem} />
      <div aria-live="polite">
        {streamed && (
          <figure class="streamed">
            <figcaption>{streamed.stopped ? `Stopped: what ${persona.name} had written` : `${persona.name} is writing…`}</figcaption>
            <div class="diff-text streamed-text">{streamed.text}</div>
          </figure>
        )}
        {result && 'error' in result && <RefineFailure error={result.error} providerName={providerNames(providers ?? [])} />}
        {result && !('error' in result) && (
          <div class="result">
            <h4 class="visually-hidden">Result</h4>
            <figure>
              <figcaption>Answer by {persona.name}</figcaption>
              <div class="diff-text generated-text">{result.response}</div>
            </figure>
            <PersonaHeaders outcome={result} />
            <Timing outcome={result} />
            <Spend outcome={result} />
          </div>
        )}
      </div>
    </>
  );
}

/** `X-Persona-Version`, `X-Persona-Score` and `X-Persona-Violations`, in words. */
function PersonaHeaders({ outcome }: { outcome: GenerateOutcome }) {
  const parts: string[] = [];
  if (outcome.personaVersion !== undefined) parts.push(`Persona version ${outcome.personaVersion}`);
  if (outcome.score !== undefined) parts.push(`score ${outcome.score}/100`);
  const broken = Object.entries(outcome.violations ?? {});
  if (outcome.violations !== undefined) parts.push(broken.length === 0 ? 'every rule kept' : `rules still broken: ${broken.map(([rule, count]) => `${rule} ×${count}`).join(', ')}`);
  if (parts.length === 0) return null;
  return <p class="persona-headers">{parts.join(' · ')}.</p>;
}
