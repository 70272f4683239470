/**
 * Template placeholders: the slots a notification or message template is filled in
 * through. A rewrite that turns `{{first_name}}` into "the customer" ships a broken
 * template, so placeholders are protected from the fixes and must survive the model.
 *
 * The syntaxes, each bounded in length so that a run of braces or percent signs cannot
 * make the scan slow:
 * - `{{ name }}`, `{{{ raw }}}` (Mustache, Handlebars, Jinja, Liquid): anything but braces on one line;
 * - `${name}` (JavaScript template literals, shell): anything but braces on one line;
 * - `{name}`, `{0}`, `{}`, `{amount:.2f}` (Python, C#, ICU, Rust): an identifier or index, no blanks,
 *   so `{ "a": 1 }` or `{color: red}` in prose are not placeholders;
 * - `[[name]]` (wiki-style templates);
 * - printf conversions `%s`, `%d`, `%05.2f`, `%1$s`, `%(name)s`, `%@`: not after another `%`
 *   (`%%s` prints "%s") and not glued to a following letter or digit, so "50% off" and
 *   "100%free" are not placeholders.
 */
export const PLACEHOLDER = new RegExp(
  [
    String.raw`\{\{\{[^{}\n]{1,200}\}\}\}`,
    String.raw`\{\{[^{}\n]{1,200}\}\}`,
    String.raw`\$\{[^{}\n]{1,200}\}`,
    String.raw`\{(?:[\p{L}_][\p{L}\p{N}_.-]{0,63}|\p{Nd}{1,3})?(?:![rsa])?(?::[^{}\s]{1,40})?\}`,
    String.raw`\[\[[^\[\]\n]{1,200}\]\]`,
    String.raw`(?<!%)%(?:\p{Nd}{1,2}\$|\([^()\s]{1,64}\))?[-+#0]{0,4}\p{Nd}{0,3}(?:\.\p{Nd}{1,3})?(?:ll|[hlLqjzt])?[sdiufFeEgGxXoc@](?![\p{L}\p{N}_])`,
  ].join('|'),
  'gu',
);
