/** What the studio shows before a persona is picked. */
import { useRef } from 'preact/hooks';
import { useFocusOnMount } from '../hooks.js';
import { COMPARE_HREF, DRAFT_PERSONA_HREF, NEW_PERSONA_HREF } from '../routing.js';
import { useScopes } from '../scopes.js';

export function Home() {
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnMount(heading);
  const mayCreate = useScopes().can('personas:write');
  return (
    <section aria-labelledby="home-heading">
      <h2 id="home-heading" ref={heading} tabIndex={-1}>
        Your personas
      </h2>
      <p>
        Pick a persona from the list to edit it and preview how it rewrites text
        {mayCreate && (
          <>
            , <a href={NEW_PERSONA_HREF}>create a new one</a>, or <a href={DRAFT_PERSONA_HREF}>draft one from texts written in its voice</a>
          </>
        )}
        . To see two personas rewrite the same text side by side, open <a href={COMPARE_HREF}>Compare</a>.
      </p>
    </section>
  );
}
