/**
 * The signed-in studio: header, persona list, and the view the URL names. It holds what the
 * views share: the persona list, the provider list, and the refine settings, provider key
 * included, which live here in memory only.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { StudioApi } from '../api/client.js';
import type { Persona } from '../api/types.js';
import type { Provider } from '../api/providers.js';
import { ALL_PERSONAS_FILE, formatPersonaCollection } from '../personas/persona-files.js';
import { PersonaSuffixesContext, duplicateSuffixes, newestFirst } from '../personas/persona-names.js';
import { DraftView } from '../drafting/draft-view.js';
import { EvalsView } from '../evals/evals-view.js';
import { HistoryView } from '../history/history-view.js';
import { QualityView } from '../quality/quality-view.js';
import { CompareView } from '../preview/compare-view.js';
import { PreviewPanel } from '../preview/preview-panel.js';
import { INITIAL_SETTINGS, type RefineSettings } from '../preview/refine-settings.js';
import { COMPARE_HREF, HOME_HREF, KEYS_HREF, WEBHOOKS_HREF, navigate, personaHref, useRoute } from '../routing.js';
import { ScopesContext, hasScope } from '../scopes.js';
import { WebhookView } from '../webhooks/webhook-view.js';
import { WebhooksView } from '../webhooks/webhooks-view.js';
import { KeysView } from './keys-view.js';
import { downloadText } from './download.js';
import { Home } from './home.js';
import { ImportDialog } from './import-dialog.js';
import { PersonaEditor } from './persona-editor.js';
import { PersonaList } from './persona-list.js';

interface EditorState {
  saved: Persona;
  dirty: boolean;
}

/**
 * Hands the editor's state up to the workspace, which draws the preview beside the editor (on a
 * wide screen) rather than under its form, ~1,800 px below the fields it previews.
 */
function ReportEditorState({ saved, dirty, onChange }: EditorState & { onChange: (state: EditorState) => void }) {
  useEffect(() => onChange({ saved, dirty }), [saved, dirty]);
  return null;
}

interface WorkspaceProps {
  api: StudioApi;
  initialPersonas: Persona[] | undefined;
  onSignOut: () => void;
}

export function Workspace({ api, initialPersonas, onSignOut }: WorkspaceProps) {
  const route = useRoute();
  const [personas, setPersonas] = useState(initialPersonas);
  // Shown newest first whatever changed the list (an action here, a reload, another client).
  const listed = useMemo(() => personas && newestFirst(personas), [personas]);
  const suffixes = useMemo(() => duplicateSuffixes(personas ?? []), [personas]);
  // Undefined until GET /v1/providers answers.
  const [providers, setProviders] = useState<Provider[] | undefined>(undefined);
  const [settings, setSettings] = useState<RefineSettings>(INITIAL_SETTINGS);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [importing, setImporting] = useState(false);
  // The persona editor's saved persona and whether it has unsaved changes, for the preview beside it.
  const [editorState, setEditorState] = useState<EditorState | undefined>(undefined);
  const main = useRef<HTMLElement>(null);
  // What the key may do, so the views disable what it may not (src/scopes.ts); unknown until answered.
  const [granted, setGranted] = useState<readonly string[] | undefined>(undefined);
  useEffect(() => {
    api.currentKey().then(
      (key) => {
        setGranted(key.scopes);
        if (!hasScope(key.scopes, 'personas:read')) {
          setNotice('This key lacks the scope “personas:read”, so personas are not listed.');
        }
        // Listing providers needs `refine`; a key without it refines nothing, so it is not asked.
        if (hasScope(key.scopes, 'refine')) void loadProviders();
        else setProviders([]);
      },
      () => {
        setGranted(undefined);
        void loadProviders();
      },
    );
  }, []);

  const cannotList = granted !== undefined && !hasScope(granted, 'personas:read');
  const reloadPersonas = () =>
    cannotList ? Promise.resolve() : api.listPersonas().then(setPersonas, () => setNotice('Could not load the personas; reload the page to try again.'));
  const loadProviders = () =>
    api.providers().then(setProviders, () => {
      setProviders([]);
      setNotice('Could not load the list of providers; type a provider id under “Other…”, or reload the page.');
    });
  // Personas also change through the API and the CLI, so the list is re-read whenever the view
  // changes; the first view uses the list that signing in just fetched.
  const listedAtSignIn = useRef(initialPersonas !== undefined);
  useEffect(() => {
    if (listedAtSignIn.current) {
      listedAtSignIn.current = false;
      return;
    }
    void reloadPersonas();
  }, [JSON.stringify(route)]);

  const onSaved = (persona: Persona, created: boolean) => {
    setPersonas((list = []) => (created ? [...list, persona] : list.map((item) => (item.id === persona.id ? persona : item))));
    if (created) navigate(personaHref(persona.id));
  };
  const onDeleted = (persona: Persona) => {
    setPersonas((list = []) => list.filter((item) => item.id !== persona.id));
    navigate(HOME_HREF);
  };
  const editorProps = { api, onSaved, onDeleted, onNotice: setNotice };
  const refineProps = { api, settings, providers, onSettings: setSettings };
  const currentId = route.view === 'persona' || route.view === 'history' || route.view === 'evals' || route.view === 'quality' ? route.id : undefined;

  return (
    <ScopesContext.Provider value={{ granted }}>
      <PersonaSuffixesContext.Provider value={suffixes}>
        <a
          class="skip-link"
          href="#main"
          onClick={(event) => {
            // The fragment holds the route, so focus the content instead of following the link.
            event.preventDefault();
            main.current?.focus();
          }}
        >
          Skip to content
        </a>
        <header class="top">
          <h1>Persona Studio</h1>
          <nav aria-label="Studio">
            <a href={HOME_HREF} aria-current={route.view === 'home' ? 'page' : undefined}>
              Personas
            </a>
            <a href={COMPARE_HREF} aria-current={route.view === 'compare' ? 'page' : undefined}>
              Compare
            </a>
            <a href={KEYS_HREF} aria-current={route.view === 'keys' ? 'page' : undefined}>
              Keys
            </a>
            {/* Only once the key is known to manage them: an entry that vanished a moment after sign-in would be worse than one that appears. */}
            {granted !== undefined && hasScope(granted, 'webhooks:admin') && (
              <a href={WEBHOOKS_HREF} aria-current={route.view === 'webhooks' || route.view === 'webhook' ? 'page' : undefined}>
                Webhooks
              </a>
            )}
          </nav>
          <button type="button" class="secondary" onClick={onSignOut}>
            Sign out
          </button>
        </header>
        <div class="layout">
          <PersonaList
            personas={listed}
            currentId={currentId}
            onExportAll={() => personas && downloadText(ALL_PERSONAS_FILE, formatPersonaCollection(personas))}
            onImport={() => setImporting(true)}
          />
          <main id="main" ref={main} tabIndex={-1}>
            <p role="status" class={notice ? 'notice' : 'visually-hidden'}>
              {notice}
            </p>
            {route.view === 'home' && <Home />}
            {route.view === 'new' && <PersonaEditor key="new" id={undefined} {...editorProps} />}
            {route.view === 'draft' && (
              <DraftView api={api} settings={settings} providers={providers} onSettings={setSettings} onSaved={onSaved} onNotice={setNotice} onDeleted={() => navigate(HOME_HREF)} />
            )}
            {route.view === 'persona' && (
              <div class="editor-and-preview">
                <PersonaEditor key={route.id} id={route.id} {...editorProps}>
                  {(saved, dirty) => <ReportEditorState saved={saved} dirty={dirty} onChange={setEditorState} />}
                </PersonaEditor>
                {editorState?.saved.id === route.id && <PreviewPanel {...refineProps} persona={editorState.saved} dirty={editorState.dirty} />}
              </div>
            )}
            {route.view === 'history' && <HistoryView key={route.id} api={api} id={route.id} onRestored={(persona) => onSaved(persona, false)} />}
            {route.view === 'evals' && <EvalsView key={route.id} api={api} id={route.id} providers={providers} />}
            {route.view === 'quality' && <QualityView key={route.id} api={api} id={route.id} />}
            {route.view === 'compare' && (listed ? <CompareView {...refineProps} personas={listed} /> : <p role="status">Loading…</p>)}
            {route.view === 'keys' && <KeysView api={api} />}
            {route.view === 'webhooks' && <WebhooksView api={api} />}
            {route.view === 'webhook' && <WebhookView key={route.id} api={api} id={route.id} onNotice={setNotice} />}
          </main>
        </div>
        {importing && (
          <ImportDialog
            api={api}
            onClose={(changed) => {
              setImporting(false);
              if (changed) void reloadPersonas();
            }}
          />
        )}
      </PersonaSuffixesContext.Provider>
    </ScopesContext.Provider>
  );
}
