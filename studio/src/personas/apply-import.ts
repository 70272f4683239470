/**
 * Applying an import plan as `persona-refine personas import --yes` does: an update first reads
 * the persona again and goes ahead only if it is still what the plan was made from, then sends
 * If-Match with that fresh ETag, so an edit made elsewhere meanwhile is never silently replaced.
 */
import type { StudioApi } from '../api/client.js';
import { sameJson } from './attributes.js';
import type { ImportStep } from './persona-files.js';

/** The persona changed between the plan and the import; nothing was written for it. */
export class ChangedSincePlanError extends Error {
  override name = 'ChangedSincePlanError';
}

type Change = Extract<ImportStep, { action: 'create' | 'update' }>;

export async function applyImportStep(api: StudioApi, step: Change): Promise<void> {
  const { desired } = step;
  if (step.action === 'create') {
    await api.createPersona({ name: desired.name, attributes: desired.attributes });
    return;
  }
  const latest = await api.getPersona(step.current.id);
  if (latest.persona.name !== step.current.name || !sameJson(latest.persona.attributes, step.current.attributes)) {
    throw new ChangedSincePlanError(`“${step.current.name}” was changed elsewhere after the plan was made; nothing was written for it. Choose the files again to see a new plan.`);
  }
  await api.updatePersona(step.current.id, { name: desired.name, attributes: desired.attributes }, latest.etag);
}
