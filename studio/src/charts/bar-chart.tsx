/** Bars, one per category (answers per day, findings per rule), from zero up. */
import { ChartFrame, type LegendItem } from './chart-frame.js';
import { niceTicks } from './nice-ticks.js';

export interface BarChartProps {
  title: string;
  description: string;
  categories: readonly string[];
  categoryLabel?: (category: string) => string;
  /** The bar of each category, in the order of `categories`. */
  values: readonly number[];
  /** The series' name, e.g. "answers": a bar's data-series and its legend. */
  series: string;
  color: string;
  /** What a bar says, e.g. "2026-11-22: 5 answers". */
  describe(category: string, value: number): string;
  legend?: readonly LegendItem[];
}

export function BarChart({ title, description, categories, categoryLabel, values, series, color, describe, legend }: BarChartProps) {
  const ticks = niceTicks(0, Math.max(1, ...values), 5, { integers: true });
  return (
    <ChartFrame
      title={title}
      description={description}
      categories={categories}
      categoryLabel={categoryLabel}
      ticks={ticks}
      legend={legend ?? [{ label: series, color }]}
      draw={(plot) => {
        const band = plot.band(categories.length);
        const barWidth = Math.max(3, Math.min(48, band.width * 0.7));
        const marks = categories.map((category, index) => {
          const value = values[index] ?? 0;
          const top = plot.y(ticks, value);
          const x = band.center(index);
          return {
            category, series, value, text: describe(category, value), x, y: top,
            shape: (
              <>
                {/* The whole band answers the pointer, so a short bar is as easy to hover as a tall one. */}
                <rect class="hit" x={x - band.width / 2} y={plot.top} width={band.width} height={plot.bottom - plot.top} />
                <rect class="bar" x={x - barWidth / 2} y={top} width={barWidth} height={Math.max(0, plot.bottom - top)} fill={color} />
              </>
            ),
          };
        });
        return { marks };
      }}
    />
  );
}
