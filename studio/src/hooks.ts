/** Small hooks the views share. */
import { type RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A text draft for a control whose text is not a 1:1 image of its value (a list typed one per
 * line, JSON, a number being typed). The draft follows the value only when the value changed
 * elsewhere, so typing a trailing newline or half a number is not undone by the next render.
 */
export function useSyncedDraft<T>(value: T, format: (value: T) => string, isDraftOf: (draft: string, value: T) => boolean): [string, (draft: string) => void] {
  const draft = useRef<string | undefined>(undefined);
  const [, rerender] = useState(0);
  if (draft.current === undefined || !isDraftOf(draft.current, value)) draft.current = format(value);
  const setDraft = (next: string) => {
    draft.current = next;
    rerender((count) => count + 1);
  };
  return [draft.current, setDraft];
}

/** Moves keyboard focus to the element when the view opens, so keyboard and screen-reader users start there. */
export function useFocusOnMount(ref: RefObject<HTMLElement | null>, when = true): void {
  useEffect(() => {
    if (when) ref.current?.focus();
  }, [when]);
}
