/** The CLI's exit codes besides 0 (done), 1 (something failed) and 2 (called wrongly). */

/**
 * The work was done, but the text falls short of the persona: a refine left some of its rules
 * broken, or a check or an evaluation is under the bar. Not 1, so a script or a CI job can tell
 * "the text needs work" from "the tool could not do its job".
 */
export const EXIT_BELOW_BAR = 3;
/**
 * Exit code of `refine --stream` when the service's final result is not what it streamed (a
 * service bug it flags as `replaced`): stdout holds the wrong text, and a script must not use it.
 */
export const EXIT_STREAM_REPLACED = 4;
