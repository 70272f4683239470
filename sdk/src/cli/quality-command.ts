/**
 * `quality --persona ID`: how a persona's answers fare on live traffic, a row per UTC day (or per
 * version): answers, mean score, those under minScore or with a required finding left, the
 * feedback on them, the tokens they cost and the findings by rule. `--json` prints the rows as the API sends them.
 */
import type { QualityQuery, QualityRow } from '../index.js';
import { parseCommand } from './args.js';
import { type CliContext, UsageError } from './io.js';
import { type Column, formatTable } from './table.js';

const COLUMNS: readonly Column[] = [
  { title: 'answers', align: 'right' },
  { title: 'mean', align: 'right' },
  { title: 'below min', align: 'right' },
  { title: 'required left', align: 'right' },
  { title: 'up', align: 'right' },
  { title: 'down', align: 'right' },
  { title: 'tokens in/out', align: 'right' },
  { title: 'findings' },
];

const day = (raw: string | undefined, flag: string) => {
  if (raw !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(raw)) throw new UsageError(`${flag} must be a day as YYYY-MM-DD, got "${raw}"`);
  return raw;
};

export async function qualityCommand(args: string[], { io, client }: CliContext): Promise<number> {
  const { values, positionals } = parseCommand(args, {
    persona: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    'group-by': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError('quality takes only options');
  if (!values.persona) throw new UsageError('--persona ID is required');
  const groupBy = values['group-by'];
  if (groupBy !== undefined && groupBy !== 'day' && groupBy !== 'version') throw new UsageError(`--group-by must be day or version, got "${groupBy}"`);
  const query: QualityQuery = {
    ...(values.from === undefined ? {} : { from: day(values.from, '--from') }),
    ...(values.to === undefined ? {} : { to: day(values.to, '--to') }),
    ...(groupBy === undefined ? {} : { groupBy }),
  };
  const rows = await client().quality(values.persona, query);
  if (values.json) {
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stderr.write('no answers or feedback in this range\n');
    return 0;
  }
  const first: Column = groupBy === 'version' ? { title: 'version', align: 'right' } : { title: 'day' };
  io.stdout.write(formatTable([first, ...COLUMNS], rows.map((row) => rowOf(row, groupBy === 'version'))));
  return 0;
}

function rowOf(row: QualityRow, byVersion: boolean): string[] {
  const findings = Object.entries(row.findings).map(([rule, count]) => `${rule}=${count}`).join(', ') || '-';
  return [
    byVersion ? String(row.version ?? '-') : (row.day ?? '-'),
    String(row.answers),
    row.meanScore === null ? '-' : String(row.meanScore),
    String(row.belowMinScore),
    String(row.withRequiredFindings),
    String(row.feedback.up),
    String(row.feedback.down),
    `${row.tokens.input}/${row.tokens.output}`,
    findings,
  ];
}
