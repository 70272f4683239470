/** One persona: name, attributes as a form or as JSON, save (with If-Match), export, delete. */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { StudioApi } from '../api/client.js';
import type { Persona, PersonaDraft } from '../api/types.js';
import { FieldError } from '../fields/field-parts.js';
import { TextField } from '../fields/text-field.js';
import { useFocusOnMount } from '../hooks.js';
import { fileNameFor, formatPersonaFile } from '../personas/persona-files.js';
import { useDistinctName } from '../personas/persona-names.js';
import { variantsOf, withVariant } from '../personas/variant-names.js';
import { evalsHref, historyHref, qualityHref } from '../routing.js';
import { useScopes } from '../scopes.js';
import { AttributeForm } from './attribute-form.js';
import { ConfirmDialog, Dialog } from './dialog.js';
import { downloadText } from './download.js';
import { JsonAttributes } from './json-attributes.js';
import { type EditingCallbacks, usePersonaEditing } from './use-persona-editing.js';
import { VariantSwitcher } from './variant-switcher.js';

interface PersonaEditorProps extends EditingCallbacks {
  api: StudioApi;
  /** Undefined for a new persona. */
  id: string | undefined;
  /** A new persona's name and attributes to start from (a draft from samples). */
  initial?: PersonaDraft;
  onDeleted(persona: Persona): void;
  /** Shown below the editor once the persona exists (the preview); told whether the draft has unsaved changes. */
  children?: (saved: Persona, dirty: boolean) => ComponentChildren;
}

export function PersonaEditor({ api, id, initial, onSaved, onNotice, onDeleted, children }: PersonaEditorProps) {
  const editing = usePersonaEditing(api, id, { onSaved, onNotice }, initial);
  const { loaded, draft, errors } = editing;
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [jsonProblem, setJsonProblem] = useState<string | undefined>(undefined);
  // The variant the form edits; undefined: the persona's own attributes.
  const [variant, setVariant] = useState<string | undefined>(undefined);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const cannotWrite = useScopes().lacking('personas:write');
  const nameOf = useDistinctName();
  const heading = useRef<HTMLHeadingElement>(null);
  const nameInput = useRef<HTMLInputElement>(null);
  // A new persona starts at its name; an existing one (or a draft, read before it is changed) at its heading, so the page reads from the top.
  useFocusOnMount(id === undefined && initial === undefined ? nameInput : heading, !editing.loading);

  if (editing.loading) return <p role="status">Loading…</p>;
  if (id !== undefined && !loaded) {
    return (
      <section aria-labelledby="editor-heading">
        <h2 id="editor-heading" ref={heading} tabIndex={-1}>
          Persona
        </h2>
        <p role="alert" class="error">
          {errors.general ?? errors.name ?? errors.attributes}
        </p>
      </section>
    );
  }

  const showJson = () => setMode('json');
  // Undefined when `variants` holds what the form cannot draw; a variant gone (a JSON edit, a reload) is the base again.
  const variants = variantsOf(draft.attributes);
  const editedVariant = variant !== undefined && variants?.[variant] !== undefined ? variant : undefined;
  return (
    <section aria-labelledby="editor-heading" class="editor">
      <h2 id="editor-heading" ref={heading} tabIndex={-1}>
        {loaded ? nameOf(loaded.persona) : 'New persona'}
      </h2>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!jsonProblem && !editing.saving) void editing.save();
        }}
      >
        <TextField
          id="persona-name"
          label="Name"
          hint="Up to 200 characters."
          value={draft.name}
          error={errors.name}
          inputRef={nameInput}
          onChange={editing.setName}
        />

        <div class="attributes-header">
          <h3 id="attributes-heading">Attributes</h3>
          <fieldset class="mode-switch">
            <legend>Edit attributes as</legend>
            {(['form', 'json'] as const).map((value) => (
              <label key={value}>
                <input type="radio" name="attribute-mode" value={value} checked={mode === value} onChange={() => setMode(value)} />
                {value === 'form' ? 'Form' : 'JSON'}
              </label>
            ))}
          </fieldset>
        </div>
        {mode === 'form' && <FieldError id="attributes" error={errors.attributes} />}
        {mode === 'form' && variants === undefined && (
          <p class="hint">
            “variants” holds a value the form cannot show.{' '}
            <button type="button" class="link" onClick={showJson}>
              Edit it as JSON
            </button>
          </p>
        )}
        {mode === 'form' && variants !== undefined && (
          <VariantSwitcher attributes={draft.attributes} selected={editedVariant} onSelect={setVariant} onChange={editing.setAttributes} />
        )}
        {mode === 'form' ? (
          editedVariant === undefined ? (
            <AttributeForm key="base" attributes={draft.attributes} onChange={editing.setAttributes} onShowJson={showJson} />
          ) : (
            <AttributeForm
              key={`variant-${editedVariant}`}
              variant={editedVariant}
              attributes={variants![editedVariant]!}
              onChange={(next) => editing.setAttributes(withVariant(draft.attributes, editedVariant, next))}
              onShowJson={showJson}
            />
          )
        ) : (
          <JsonAttributes
            attributes={draft.attributes}
            error={errors.attributes}
            onChange={editing.setAttributes}
            onProblem={setJsonProblem}
          />
        )}

        {errors.general && (
          <p role="alert" class="error">
            {errors.general}
          </p>
        )}
        <div class="actions sticky-actions">
          <button type="submit" disabled={editing.saving || jsonProblem !== undefined || cannotWrite !== undefined} title={cannotWrite}>
            {editing.saving ? 'Saving…' : 'Save'}
          </button>
          {cannotWrite && <span class="hint">{cannotWrite} Saving and deleting are off.</span>}
          {jsonProblem && <span class="hint">Fix the JSON to save.</span>}
          {!jsonProblem && editing.dirty && <span class="hint">Unsaved changes</span>}
          {loaded && (
            <>
              <button
                type="button"
                class="secondary"
                onClick={() => downloadText(fileNameFor(loaded.persona), formatPersonaFile(loaded.persona))}
              >
                Export JSON
              </button>
              <a class="button secondary" href={historyHref(loaded.persona.id)}>
                History
              </a>
              <a class="button secondary" href={evalsHref(loaded.persona.id)}>
                Evaluations
              </a>
              <a class="button secondary" href={qualityHref(loaded.persona.id)}>
                Quality
              </a>
              <button type="button" class="danger" disabled={cannotWrite !== undefined} title={cannotWrite} onClick={() => setConfirmingDelete(true)}>
                Delete
              </button>
            </>
          )}
        </div>
      </form>

      {editing.conflict && (
        <Dialog
          title="Someone else changed this persona"
          onCancel={editing.dismissConflict}
          actions={
            <>
              <button type="button" onClick={() => void editing.reloadTheirs()}>
                Reload their version
              </button>
              <button type="button" class="danger" onClick={() => void editing.overwrite()}>
                Overwrite with mine
              </button>
              <button type="button" class="secondary" autofocus onClick={editing.dismissConflict}>
                Keep editing
              </button>
            </>
          }
        >
          <p>It was saved by someone else after you opened it. Reload their version (your changes are discarded), or overwrite it with yours.</p>
        </Dialog>
      )}
      {confirmingDelete && loaded && (
        <ConfirmDialog
          title={`Delete “${nameOf(loaded.persona)}”?`}
          confirm="Delete persona"
          danger
          onConfirm={async () => {
            setConfirmingDelete(false);
            if (await editing.remove()) onDeleted(loaded.persona);
          }}
          onCancel={() => setConfirmingDelete(false)}
        >
          <p>This cannot be undone. Applications that refine with this persona's id will get 404 errors.</p>
        </ConfirmDialog>
      )}
      {loaded && children?.(loaded.persona, editing.dirty)}
    </section>
  );
}
