/**
 * The maintenance timeline as SVG: one row per node, a bar per phase of each request (waiting,
 * draining, rebooting or upgrading, verifying), open windows and freezes shaded behind them, the
 * present as a line. Colours and fonts are in page.css (the page's Content-Security-Policy allows no
 * inline style); each bar carries its node, request and phase as data attributes and a tooltip.
 * Every value from the cluster goes through `html`.
 */
import { formatDuration } from '../../src/core/duration.js';
import { localTime, type PhaseSpan } from '../../src/core/timeline.js';
import { html } from './escape.js';
import type { RowRequest, TimelineModel, TimelineRow } from './model.js';

const WIDTH = 1200;
const LABEL = 190;
const RIGHT = 12;
const AXIS = 28;
const ROW = 26;
const BAR = 14;
/** A phase of a few seconds in a day-long range is still a visible sliver. */
const MIN_BAR = 2;

export function timelineSvg(model: TimelineModel): string {
  const height = AXIS + model.rows.length * ROW + 4;
  const x = scale(model);
  const rowsBottom = AXIS + model.rows.length * ROW;
  const band = (cls: string, start: number, end: number, title: string): string => {
    const [x1, x2] = [x(start), x(end)];
    return x2 - x1 < 0.5
      ? ''
      : `<rect class="${cls}" x="${n(x1)}" y="${AXIS}" width="${n(x2 - x1)}" height="${n(rowsBottom - AXIS)}"><title>${html(title)}</title></rect>`;
  };
  const window = (s: { start: number; end: number }) =>
    `window open ${when(model, s.start)} – ${when(model, s.end)}`;
  const shading = [
    ...(model.shading.open ?? []).map((s) => band('window', s.start, s.end, window(s))),
    ...model.shading.freezes.map((f) =>
      band('freeze', f.start, f.end, `freeze${f.reason ? `: ${f.reason}` : ''}`),
    ),
  ].join('');
  const ticks = model.ticks
    .map(
      (t) =>
        `<line class="tick" x1="${n(x(t.at))}" x2="${n(x(t.at))}" y1="${AXIS - 4}" y2="${rowsBottom}"/>` +
        `<text class="tick-label" x="${n(x(t.at))}" y="${AXIS - 9}" text-anchor="middle">${html(t.label)}</text>`,
    )
    .join('');
  const rows = model.rows.map((row, i) => rowSvg(model, row, AXIS + i * ROW, x)).join('');
  const now = x(model.now);
  return (
    `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" ` +
    `width="${WIDTH}" height="${height}" role="img" aria-label="Maintenance timeline, one row per node">` +
    `<g class="shading">${shading}</g><g class="axis">${ticks}</g><g class="rows">${rows}</g>` +
    `<line class="now" x1="${n(now)}" x2="${n(now)}" y1="${AXIS - 4}" y2="${rowsBottom}"><title>now</title></line>` +
    `</svg>`
  );
}

function rowSvg(
  model: TimelineModel,
  row: TimelineRow,
  y: number,
  x: (t: number) => number,
): string {
  const state = row.missing
    ? 'gone'
    : `${row.ready === 'True' ? 'Ready' : `NotReady (${row.ready})`}${row.unschedulable ? ', cordoned' : ''}`;
  const mark = row.marked
    ? `<circle class="mark" cx="${LABEL - 12}" cy="${y + ROW / 2}" r="4"><title>${html(
        `reboot required${row.packages ? `: ${row.packages}` : ''}`,
      )}</title></circle>`
    : '';
  const name = row.node.length > 24 ? `${row.node.slice(0, 23)}…` : row.node;
  const bars = row.requests.map((r) => requestSvg(model, r, y, x)).join('');
  return (
    `<g class="row${row.missing ? ' missing' : ''}${row.unschedulable ? ' cordoned' : ''}" data-node="${html(row.node)}">` +
    `<rect class="row-bg" x="0" y="${y}" width="${WIDTH}" height="${ROW}"/>` +
    `<text class="node-name" x="8" y="${y + ROW / 2 + 4}">${html(name)}<title>${html(`${row.node}: ${state}`)}</title></text>` +
    `${mark}${bars}</g>`
  );
}

function requestSvg(
  model: TimelineModel,
  { request, phases }: RowRequest,
  y: number,
  x: (t: number) => number,
): string {
  const visible = phases.filter((p) => p.end >= model.from && p.start <= model.to);
  if (visible.length === 0) return '';
  const top = y + (ROW - BAR) / 2;
  const what =
    request.action === 'upgrade' ? `upgrade to ${request.targetVersion ?? '?'}` : 'reboot';
  const bars = visible.map((p) => {
    const x1 = x(p.start);
    const width = Math.max(MIN_BAR, x(p.end) - x1);
    const title = `${request.id} ${what} of ${request.node}: ${phaseWords(model, p)} (request ${request.state})`;
    return (
      `<rect class="bar phase-${p.phase}${p.ongoing ? ' ongoing' : ''}" data-phase="${p.phase}" ` +
      `x="${n(x1)}" y="${top}" width="${n(width)}" height="${BAR}" rx="2">` +
      `<title>${html(title)}</title></rect>`
    );
  });
  return `<g class="request state-${html(request.state)}" data-request="${html(request.id)}" data-state="${html(request.state)}">${bars.join('')}</g>`;
}

function phaseWords(model: TimelineModel, p: PhaseSpan): string {
  const took = formatDuration(Math.max(0, p.end - p.start));
  return p.ongoing
    ? `${p.phase} since ${when(model, p.start)} (${took} so far)`
    : `${p.phase} ${when(model, p.start)} – ${when(model, p.end)} (${took})`;
}

/** A time as the range needs it: with the date once the range spans days. */
const when = (model: TimelineModel, ms: number): string =>
  localTime(ms, model.zone, model.to - model.from > 86_400_000);

/** Epoch ms → x in the plot area, clamped so bars reaching outside the range end at its edge. */
function scale(model: TimelineModel): (t: number) => number {
  const left = LABEL;
  const right = WIDTH - RIGHT;
  const span = Math.max(1, model.to - model.from);
  return (t) => Math.min(right, Math.max(left, left + ((t - model.from) / span) * (right - left)));
}

const n = (value: number): string => String(Math.round(value * 10) / 10);
