/**
 * A persona's quality on live traffic (GET /v1/personas/{id}/quality, the last 30 days): answers
 * per day, mean score per day by version against the persona's minScore, findings by rule, the
 * feedback callers gave and the tokens the answers cost; below them, the review queue.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/api-error.js';
import type { StudioApi } from '../api/client.js';
import { plainError } from '../api/plain-errors.js';
import type { Persona, QualityRow } from '../api/types.js';
import { BarChart } from '../charts/bar-chart.js';
import { LineChart } from '../charts/line-chart.js';
import { formatNumber } from '../charts/nice-ticks.js';
import { StackedBars } from '../charts/stacked-bars.js';
import { useFocusOnMount } from '../hooks.js';
import { useDistinctName } from '../personas/persona-names.js';
import { evalsHref, historyHref, personaHref } from '../routing.js';
import { useScopes } from '../scopes.js';
import { ReviewQueue } from './review-queue.js';
import { daySpan, findingsByRule, perDay, scoreLines, totalsOf } from './quality-series.js';

// Okabe–Ito colours: told apart with the common colour-vision deficiencies, and dark enough on white.
const VERSION_COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#8a6d00', '#56b4e9'];
const ANSWERS_COLOR = '#0b57d0';
const FINDINGS_COLOR = '#8250df';
const UP_COLOR = '#1a7f37';
const DOWN_COLOR = '#b3261e';
const MIN_SCORE_COLOR = '#b3261e';
const INPUT_TOKENS_COLOR = '#0072b2';
const OUTPUT_TOKENS_COLOR = '#d55e00';

interface Loaded {
  persona: Persona;
  days: QualityRow[];
  /** Each day with answers, its rows grouped by version. */
  versionsByDay: Map<string, QualityRow[]>;
}

const plural = (count: number, one: string, many = `${one}s`) => `${formatNumber(count)} ${count === 1 ? one : many}`;
const shortDay = (day: string) => day.slice(5);

export function QualityView({ api, id }: { api: StudioApi; id: string }) {
  const [loaded, setLoaded] = useState<Loaded | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnMount(heading, loaded !== undefined);
  const nameOf = useDistinctName();
  const cannotRead = useScopes().lacking('usage:read');

  useEffect(() => {
    if (cannotRead) return;
    void (async () => {
      try {
        const [{ persona }, days] = await Promise.all([api.getPersona(id), api.quality(id)]);
        // The API sums a day's versions; the lines by version ask for each day with answers by version.
        const answered = days.filter((row) => row.answers > 0 && row.day).map((row) => row.day!);
        const grouped = await Promise.all(answered.map((day) => api.quality(id, { from: day, to: day, groupBy: 'version' })));
        setLoaded({ persona, days, versionsByDay: new Map(answered.map((day, index) => [day, grouped[index]!])) });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        setProblem(plainError(error));
      }
    })();
  }, [id, cannotRead]);

  if (cannotRead) return <p class="notice">{cannotRead} It is what reading a persona's quality needs.</p>;
  if (!loaded) {
    return problem ? (
      <p role="alert" class="error">
        {problem}
      </p>
    ) : (
      <p role="status">Loading…</p>
    );
  }

  const { persona, days: rows, versionsByDay } = loaded;
  const days = daySpan(rows);
  const totals = totalsOf(rows);
  const minScore = typeof persona.attributes.minScore === 'number' ? persona.attributes.minScore : undefined;
  const lines = scoreLines(days, versionsByDay);
  const findings = findingsByRule(rows);
  const byDay = new Map(rows.map((row) => [row.day, row]));

  return (
    <section aria-labelledby="quality-heading" class="quality">
      <h2 id="quality-heading" ref={heading} tabIndex={-1}>
        Quality of {nameOf(persona)}
      </h2>
      <p>
        <a href={personaHref(id)}>Edit the persona</a> · <a href={historyHref(id)}>History and labels</a> · <a href={evalsHref(id)}>Evaluations</a>
      </p>
      <p class="hint">
        Live traffic of the last 30 days (UTC): every refine, chat completion and check answered with this persona, and the feedback given on
        them. Use the arrow keys inside a chart to read its values one by one.
      </p>
      {rows.length === 0 ? (
        <p class="notice">No answers or feedback in the last 30 days.</p>
      ) : (
        <>
          <dl class="quality-totals">
            <div>
              <dt>Answers</dt>
              <dd>{formatNumber(totals.answers)}</dd>
            </div>
            <div>
              <dt>Mean score</dt>
              <dd>{totals.meanScore === undefined ? '–' : formatNumber(totals.meanScore)}</dd>
            </div>
            <div>
              <dt>Below minScore</dt>
              <dd>{minScore === undefined ? 'no minScore' : formatNumber(totals.belowMinScore)}</dd>
            </div>
            <div>
              <dt>Feedback</dt>
              <dd>
                {formatNumber(totals.up)} up · {formatNumber(totals.down)} down
              </dd>
            </div>
            <div>
              <dt>Tokens</dt>
              <dd>
                {formatNumber(totals.inputTokens)} in · {formatNumber(totals.outputTokens)} out
              </dd>
            </div>
          </dl>
          {findings.length === 0 && <p class="hint">No findings were left in the answers: nothing to draw by rule.</p>}
          <div class="charts">
            <BarChart
              title="Answers per day"
              description="One bar per UTC day; its height is the number of answers."
              categories={days}
              categoryLabel={shortDay}
              values={perDay(days, rows, (row) => row.answers)}
              series="answers"
              color={ANSWERS_COLOR}
              describe={(day, value) => {
                const below = byDay.get(day)?.belowMinScore ?? 0;
                return `${day}: ${plural(value, 'answer')}${minScore !== undefined ? `, ${formatNumber(below)} below minScore` : ''}`;
              }}
            />
            <LineChart
              title="Mean score per day, by version"
              description={`One line per persona version; each point is that version's mean persona score on a UTC day.${minScore !== undefined ? ` The dashed line is the minScore, ${minScore}.` : ''}`}
              categories={days}
              categoryLabel={shortDay}
              lines={lines.map((line, index) => ({ series: `version ${line.version}`, color: VERSION_COLORS[index % VERSION_COLORS.length]!, values: line.scores }))}
              thresholds={minScore === undefined ? [] : [{ label: `minScore ${minScore}`, value: minScore, color: MIN_SCORE_COLOR }]}
              include={[100]}
              describe={(day, series, value) => `${day}, ${series}: mean score ${formatNumber(value)}`}
            />
            {findings.length > 0 && <BarChart
              title="Findings by rule"
              description="One bar per rule; its height is how many findings of that rule were left in the answers over the 30 days."
              categories={findings.map(([rule]) => rule)}
              values={findings.map(([, count]) => count)}
              series="findings"
              color={FINDINGS_COLOR}
              describe={(rule, value) => `${rule}: ${plural(value, 'finding')}`}
            />}
            <StackedBars
              title="Feedback per day"
              description="One bar per UTC day of the rated answers: answers rated up at the bottom, down on top."
              categories={days}
              categoryLabel={shortDay}
              parts={[
                { series: 'up', color: UP_COLOR, values: perDay(days, rows, (row) => row.feedback.up) },
                { series: 'down', color: DOWN_COLOR, values: perDay(days, rows, (row) => row.feedback.down) },
              ]}
              describe={(day, series, value) => `${day}: ${formatNumber(value)} rated ${series}`}
            />
            <StackedBars
              title="Tokens per day"
              description="One bar per UTC day: the tokens the providers reported for the answers, every call of each (fallbacks, repair, judge), input at the bottom, output on top. The rules provider and cache hits cost none."
              categories={days}
              categoryLabel={shortDay}
              parts={[
                { series: 'input', color: INPUT_TOKENS_COLOR, values: perDay(days, rows, (row) => row.tokens.input) },
                { series: 'output', color: OUTPUT_TOKENS_COLOR, values: perDay(days, rows, (row) => row.tokens.output) },
              ]}
              describe={(day, series, value) => `${day}: ${plural(value, `${series} token`)}`}
            />
          </div>
        </>
      )}
      <ReviewQueue api={api} id={id} />
    </section>
  );
}
