/**
 * What every chart shares: it draws at the width its box has (so text stays legible on a phone
 * instead of shrinking with a viewBox), the y axis with nice ticks, the x axis' category labels
 * (thinned when they would overlap), a legend, and the marks a reader hovers or reaches by keyboard.
 *
 * Keyboard: the chart is one Tab stop; the arrow keys, Home and End move between its marks
 * (a roving tabindex), and the focused or hovered mark shows its value in a tooltip. Each mark
 * also carries its value as `aria-label` and as data-* attributes (what the tests compare).
 */
import type { ComponentChildren, RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatNumber, type Ticks } from './nice-ticks.js';

export const MARGIN = { top: 14, right: 14, bottom: 34, left: 46 };
const CHAR_WIDTH = 6.6;

export interface Mark {
  /** The category (a day, a rule) the mark stands on. */
  category: string;
  series: string;
  value: number;
  /** What the tooltip and a screen reader say, e.g. "2026-11-22, version 2: mean score 92.5". */
  text: string;
  /** The tooltip's anchor. */
  x: number;
  y: number;
  shape: ComponentChildren;
}

export interface LegendItem {
  label: string;
  color: string;
  dashed?: boolean;
}

/** The plot area of a chart `width` px wide and `height` px tall. */
export interface Plot {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** The centre of category `index` of `count`, and the width of its band. */
  band(count: number): { width: number; center(index: number): number };
  /** Where `value` sits on an axis with these ticks. */
  y(ticks: Ticks, value: number): number;
}

export function plotOf(width: number, height: number): Plot {
  const left = MARGIN.left;
  const right = width - MARGIN.right;
  const top = MARGIN.top;
  const bottom = height - MARGIN.bottom;
  return {
    width, height, left, right, top, bottom,
    band(count) {
      const width = (right - left) / Math.max(1, count);
      return { width, center: (index) => left + width * (index + 0.5) };
    },
    y: (ticks, value) => bottom - ((value - ticks.min) / (ticks.max - ticks.min || 1)) * (bottom - top),
  };
}

/** The width of the element, followed as the window resizes; `fallback` until it is measured. */
function useWidth(fallback: number): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setWidth(Math.max(240, Math.floor(element.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

interface ChartFrameProps {
  /** The chart's name: its figure's caption and its accessible name. */
  title: string;
  /** Says what the axes hold, for a reader who cannot see them. */
  description: string;
  categories: readonly string[];
  /** A category's label on the x axis (a day as "11-22"). */
  categoryLabel?: (category: string) => string;
  ticks: Ticks;
  legend: readonly LegendItem[];
  height?: number;
  /** Draws the marks (and anything under them) on the plot. */
  draw(plot: Plot): { marks: Mark[]; under?: ComponentChildren };
}

export function ChartFrame({ title, description, categories, categoryLabel = (c) => c, ticks, legend, height = 230, draw }: ChartFrameProps) {
  const [box, width] = useWidth(640);
  const [active, setActive] = useState(0);
  const [shown, setShown] = useState<number | undefined>(undefined);
  const markRefs = useRef<(SVGGElement | null)[]>([]);
  const plot = plotOf(width, height);
  const { marks, under } = draw(plot);
  const band = plot.band(categories.length);
  // Every k-th label, so that labels of the widest length never overlap.
  const widest = Math.max(1, ...categories.map((c) => categoryLabel(c).length)) * CHAR_WIDTH + 8;
  const every = Math.max(1, Math.ceil(widest / band.width));
  const current = Math.min(active, Math.max(0, marks.length - 1));

  const focusMark = (index: number) => {
    const next = Math.max(0, Math.min(marks.length - 1, index));
    setActive(next);
    markRefs.current[next]?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, number> = { ArrowRight: current + 1, ArrowDown: current + 1, ArrowLeft: current - 1, ArrowUp: current - 1, Home: 0, End: marks.length - 1 };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    focusMark(target);
  };
  const tip = shown === undefined ? undefined : marks[shown];
  const tipWidth = tip ? tip.text.length * CHAR_WIDTH + 14 : 0;
  const tipX = tip ? Math.max(2, Math.min(width - tipWidth - 2, tip.x - tipWidth / 2)) : 0;
  const tipY = tip ? (tip.y - 34 < 2 ? tip.y + 10 : tip.y - 34) : 0;

  return (
    <figure class="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-box">
        <svg width={width} height={height} role="group" aria-label={`${title}. ${description}`} onKeyDown={onKeyDown} onMouseLeave={() => setShown(undefined)}>
          <g class="axis y-axis" aria-hidden="true">
            {ticks.values.map((value) => (
              <g key={value}>
                <line x1={plot.left} x2={plot.right} y1={plot.y(ticks, value)} y2={plot.y(ticks, value)} class="grid" />
                <text x={plot.left - 6} y={plot.y(ticks, value)} dy="0.32em" text-anchor="end">
                  {formatNumber(value)}
                </text>
              </g>
            ))}
          </g>
          <g class="axis x-axis" aria-hidden="true">
            <line x1={plot.left} x2={plot.right} y1={plot.bottom} y2={plot.bottom} />
            {categories.map((category, index) =>
              index % every === 0 ? (
                <text key={category} x={band.center(index)} y={plot.bottom + 18} text-anchor="middle">
                  {categoryLabel(category)}
                </text>
              ) : null,
            )}
          </g>
          {under}
          <g class="marks">
            {marks.map((mark, index) => (
              <g
                key={`${mark.series}|${mark.category}`}
                ref={(element) => {
                  markRefs.current[index] = element;
                }}
                class="mark"
                role="img"
                tabindex={index === current ? 0 : -1}
                aria-label={mark.text}
                data-series={mark.series}
                data-category={mark.category}
                data-value={mark.value}
                onFocus={() => {
                  setActive(index);
                  setShown(index);
                }}
                onBlur={() => setShown(undefined)}
                onMouseEnter={() => setShown(index)}
              >
                {mark.shape}
              </g>
            ))}
          </g>
          {tip && (
            <g class="tooltip" transform={`translate(${tipX},${tipY})`} aria-hidden="true">
              <rect width={tipWidth} height={24} rx={4} />
              <text x={7} y={16}>
                {tip.text}
              </text>
            </g>
          )}
        </svg>
      </div>
      {legend.length > 0 && (
        <ul class="legend" aria-label={`${title}: legend`}>
          {legend.map((item) => (
            <li key={item.label}>
              <svg width="18" height="10" aria-hidden="true">
                {item.dashed ? (
                  <line x1="0" x2="18" y1="5" y2="5" stroke={item.color} stroke-width="2" stroke-dasharray="4 3" />
                ) : (
                  <rect width="18" height="10" rx="2" fill={item.color} />
                )}
              </svg>
              {item.label}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
