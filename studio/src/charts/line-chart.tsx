/**
 * Lines over categories (mean score per day, one line per version), points where a series has a
 * value, and optional threshold lines (a persona's minScore) drawn dashed across the plot.
 */
import { ChartFrame, type Mark } from './chart-frame.js';
import { niceTicks } from './nice-ticks.js';

export interface LineSeries {
  /** Its legend label and its points' data-series. */
  series: string;
  color: string;
  /** Its value per category, in the order of the chart's categories; undefined where it has none. */
  values: readonly (number | undefined)[];
}

export interface Threshold {
  label: string;
  value: number;
  color: string;
}

export interface LineChartProps {
  title: string;
  description: string;
  categories: readonly string[];
  categoryLabel?: (category: string) => string;
  lines: readonly LineSeries[];
  thresholds?: readonly Threshold[];
  /** The axis always covers these (a score's 100), besides the values and thresholds. */
  include?: readonly number[];
  describe(category: string, series: string, value: number): string;
}

export function LineChart({ title, description, categories, categoryLabel, lines, thresholds = [], include = [], describe }: LineChartProps) {
  const values = [...lines.flatMap((line) => line.values.filter((v): v is number => v !== undefined)), ...thresholds.map((t) => t.value), ...include];
  const [low, high] = [Math.min(...values), Math.max(...values)];
  // A little room under the lowest point, so it is not drawn on the x axis.
  const ticks = niceTicks(low - (high - low) * 0.05, high, 5);
  return (
    <ChartFrame
      title={title}
      description={description}
      categories={categories}
      categoryLabel={categoryLabel}
      ticks={ticks}
      legend={[
        ...lines.map((line) => ({ label: line.series, color: line.color })),
        ...thresholds.map((threshold) => ({ label: threshold.label, color: threshold.color, dashed: true })),
      ]}
      draw={(plot) => {
        const band = plot.band(categories.length);
        const marks: Mark[] = [];
        const paths = lines.map((line) => {
          const points = line.values.flatMap((value, index) => (value === undefined ? [] : [{ index, value, x: band.center(index), y: plot.y(ticks, value) }]));
          for (const point of points) {
            const category = categories[point.index]!;
            marks.push({
              category, series: line.series, value: point.value, text: describe(category, line.series, point.value), x: point.x, y: point.y,
              shape: (
                <>
                  <circle class="hit" cx={point.x} cy={point.y} r={12} />
                  <circle class="point" cx={point.x} cy={point.y} r={4} fill={line.color} />
                </>
              ),
            });
          }
          const d = points.map((point, i) => `${i === 0 ? 'M' : 'L'}${point.x.toFixed(1)},${point.y.toFixed(1)}`).join(' ');
          return <path key={line.series} class="line" d={d} stroke={line.color} />;
        });
        const under = (
          <g aria-hidden="true">
            {thresholds.map((threshold) => {
              const y = plot.y(ticks, threshold.value);
              return (
                <g key={threshold.label} class="threshold">
                  <line x1={plot.left} x2={plot.right} y1={y} y2={y} stroke={threshold.color} stroke-dasharray="6 4" />
                  <text x={plot.right - 4} y={y - 5} text-anchor="end" fill={threshold.color}>
                    {threshold.label}
                  </text>
                </g>
              );
            })}
            {paths}
          </g>
        );
        return { marks, under };
      }}
    />
  );
}
