/**
 * Import persona files (the studio's or the CLI's exports): show what each file would do, then
 * apply it all only if no file has a problem, the way `persona-refine personas import` does.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import { ChangedSincePlanError, applyImportStep } from '../personas/apply-import.js';
import { type ImportStep, planImport, readPersonaFile } from '../personas/persona-files.js';
import { useDistinctName } from '../personas/persona-names.js';
import { Dialog } from './dialog.js';

interface ImportDialogProps {
  api: StudioApi;
  onClose: (changed: boolean) => void;
}

/** `nameOf` tells apart the account's personas that share a name, which an update or a no-change names. */
const describe = (step: ImportStep, nameOf: (persona: { id: string; name: string }) => string): string => {
  switch (step.action) {
    case 'create':
      return `Create “${step.desired.name}”`;
    case 'update':
      return `Update “${nameOf(step.current)}”${step.current.name === step.desired.name ? '' : ` (renamed “${step.desired.name}”)`}`;
    case 'unchanged':
      return `No change to “${nameOf(step.current)}”`;
    case 'error':
      return `Problem: ${step.problem}`;
  }
};

export function ImportDialog({ api, onClose }: ImportDialogProps) {
  const [steps, setSteps] = useState<ImportStep[] | undefined>(undefined);
  const nameOf = useDistinctName();
  const [applying, setApplying] = useState(false);
  const [report, setReport] = useState<{ text: string; failed: boolean } | undefined>(undefined);
  const changes = steps?.filter((step) => step.action === 'create' || step.action === 'update') ?? [];
  const problems = steps?.filter((step) => step.action === 'error').length ?? 0;

  const choose = async (files: FileList | null) => {
    setReport(undefined);
    setSteps(undefined);
    const items = await Promise.all([...(files ?? [])].map(async (file) => readPersonaFile(file.name, await file.text())));
    try {
      // Planned against the personas as they are now, not as the list last showed them.
      setSteps(planImport(items.flat(), await api.listPersonas()));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setReport({ text: plainError(error), failed: true });
    }
  };

  const apply = async () => {
    setApplying(true);
    let done = 0;
    try {
      for (const step of changes) {
        if (step.action === 'create' || step.action === 'update') await applyImportStep(api, step);
        done++;
      }
      setReport({ text: `Imported ${done} persona${done === 1 ? '' : 's'}.`, failed: false });
    } catch (error) {
      if (!(error instanceof ApiError) && !(error instanceof ChangedSincePlanError)) throw error;
      const reason = error instanceof ApiError ? plainError(error) : error.message;
      setReport({ text: `Imported ${done} of ${changes.length}, then ${changes[done]?.source} failed: ${reason}`, failed: true });
    } finally {
      setApplying(false);
      setSteps(undefined);
    }
  };

  return (
    <Dialog
      title="Import personas"
      onCancel={() => onClose(report !== undefined)}
      actions={
        <>
          {steps && (
            <button type="button" disabled={applying || problems > 0 || changes.length === 0} onClick={() => void apply()}>
              {applying ? 'Importing…' : `Import ${changes.length} change${changes.length === 1 ? '' : 's'}`}
            </button>
          )}
          <button type="button" class="secondary" onClick={() => onClose(report !== undefined)}>
            {report ? 'Close' : 'Cancel'}
          </button>
        </>
      }
    >
      <p>Choose JSON files exported by the studio or by the CLI. A persona is matched by its id (a file with an id updates only that persona), else by its name, else created.</p>
      <p class="hint">
        Evaluation samples in a CLI file are not imported here: each persona keeps the samples it has. Edit them in its Evaluations view, or import
        them with <code>persona-refine personas import</code>.
      </p>
      <div class="field">
        <label for="import-files">Persona files (JSON)</label>
        <input
          id="import-files"
          type="file"
          accept=".json,application/json"
          multiple
          onChange={(event) => void choose(event.currentTarget.files)}
        />
      </div>
      {steps && (
        <table class="plan">
          <caption>What the import will do</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((step) => (
              <tr key={step.source} class={step.action === 'error' ? 'error' : undefined}>
                <td>{step.source}</td>
                <td>{describe(step, nameOf)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {problems > 0 && <p role="alert" class="error">Nothing can be imported until the files with problems are fixed or left out.</p>}
      {report && (
        <p role={report.failed ? 'alert' : 'status'} class={report.failed ? 'error' : 'notice'}>
          {report.text}
        </p>
      )}
    </Dialog>
  );
}
