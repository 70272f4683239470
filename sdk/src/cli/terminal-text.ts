/**
 * What the CLI prints comes largely from elsewhere: provider and server messages, file names,
 * JSON keys and values, refined text. Any of it could carry terminal control sequences that set
 * the window title, clear the screen or recolour it (`\e]0;…\a\e[2J`). Everything printed goes
 * through here; only the progress bar's own line clearing bypasses it (TerminalSink.control).
 */

const ESCAPE_SEQUENCE = new RegExp(
  [
    '\\u001b\\[[0-?]*[ -/]*[@-~]?', // CSI: colours, cursor moves, clearing
    '\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)?', // OSC: window title, hyperlinks, clipboard
    '\\u001b[PX^_][^\\u001b]*(?:\\u001b\\\\)?', // DCS, SOS, PM, APC strings
    '\\u001b[ -/]*[0-~]?', // any other escape
    '\\u009b[0-?]*[ -/]*[@-~]?', // 8-bit CSI, parameters and all (not just its introducer)
    // 8-bit OSC, DCS, SOS, PM, APC: an unterminated one is dropped up to the line's end, not past it.
    '\\u009d[^\\u0007\\u001b\\u009c\\n]*(?:\\u0007|\\u009c|\\u001b\\\\)?',
    '[\\u0090\\u0098\\u009e\\u009f][^\\u001b\\u009c\\n]*(?:\\u009c|\\u001b\\\\)?',
  ].join('|'),
  'g',
);
/** C0 controls but tab and line feed, a CR not ending a line, DEL and the C1 controls (8-bit CSI, OSC…). */
const CONTROL = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/g;

export function stripTerminalControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}
