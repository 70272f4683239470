/**
 * A modal built on <dialog>: the browser traps focus, Escape cancels, and focus returns to
 * the control that opened it when it closes.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

interface DialogProps {
  title: string;
  onCancel: () => void;
  children: ComponentChildren;
  /** Buttons; the one marked `autofocus` gets focus first. */
  actions: ComponentChildren;
}

export function Dialog({ title, onCancel, children, actions }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    return () => {
      dialog.close();
      opener?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div id={bodyId}>{children}</div>
      <div class="actions">{actions}</div>
    </dialog>
  );
}

interface ConfirmDialogProps {
  title: string;
  /** The confirming button's words, naming the act ("Delete persona"), never "OK". */
  confirm: string;
  /** The act cannot be undone: the confirming button is drawn as dangerous. */
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}

/** A question before an act: Cancel has the focus, so Enter or Escape by reflex changes nothing. */
export function ConfirmDialog({ title, confirm, danger = false, onConfirm, onCancel, children }: ConfirmDialogProps) {
  return (
    <Dialog
      title={title}
      onCancel={onCancel}
      actions={
        <>
          <button type="button" class={danger ? 'danger' : undefined} onClick={onConfirm}>
            {confirm}
          </button>
          <button type="button" class="secondary" autofocus onClick={onCancel}>
            Cancel
          </button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
