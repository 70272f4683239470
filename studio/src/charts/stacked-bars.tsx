/** Bars of several parts stacked per category (feedback up and down per day), each part its own mark. */
import { ChartFrame, type Mark } from './chart-frame.js';
import { niceTicks } from './nice-ticks.js';

export interface StackPart {
  /** The part's name: its legend label and its marks' data-series. */
  series: string;
  color: string;
  /** Its value per category, in the order of the chart's categories. */
  values: readonly number[];
}

export interface StackedBarsProps {
  title: string;
  description: string;
  categories: readonly string[];
  categoryLabel?: (category: string) => string;
  /** Bottom part first. */
  parts: readonly StackPart[];
  describe(category: string, series: string, value: number): string;
}

export function StackedBars({ title, description, categories, categoryLabel, parts, describe }: StackedBarsProps) {
  const totals = categories.map((_, index) => parts.reduce((sum, part) => sum + (part.values[index] ?? 0), 0));
  const ticks = niceTicks(0, Math.max(1, ...totals), 5, { integers: true });
  return (
    <ChartFrame
      title={title}
      description={description}
      categories={categories}
      categoryLabel={categoryLabel}
      ticks={ticks}
      legend={parts.map((part) => ({ label: part.series, color: part.color }))}
      draw={(plot) => {
        const band = plot.band(categories.length);
        const barWidth = Math.max(3, Math.min(48, band.width * 0.7));
        const marks: Mark[] = [];
        categories.forEach((category, index) => {
          let base = 0;
          for (const part of parts) {
            const value = part.values[index] ?? 0;
            const bottom = plot.y(ticks, base);
            const top = plot.y(ticks, base + value);
            base += value;
            // A part with nothing in it has no bar to point at; the category's other parts say it.
            if (value === 0) continue;
            const x = band.center(index);
            marks.push({
              category, series: part.series, value, text: describe(category, part.series, value), x, y: top,
              shape: <rect class="bar" x={x - barWidth / 2} y={top} width={barWidth} height={Math.max(1, bottom - top)} fill={part.color} />,
            });
          }
        });
        return { marks };
      }}
    />
  );
}
