/**
 * The status page's live part (what each Server-Sent Event replaces): the fleet's summary (pause,
 * window, slots), the range links, the timeline with its legend, and the current requests with who
 * approved them. Every value from the cluster, the config or a person goes through `html`.
 */
import { byNodeName, heldSlots } from '../../src/app/control/fleet-view.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import { localTime, PHASES, TIMELINE_RANGES } from '../../src/core/timeline.js';
import { html } from './escape.js';
import type { TimelineModel } from './model.js';
import { timelineSvg } from './timeline-svg.js';

export function statusFragment(model: TimelineModel): string {
  return [summary(model), ranges(model), timeline(model), requestsTable(model), earlier(model)]
    .filter((part) => part !== '')
    .join('\n');
}

function summary(model: TimelineModel): string {
  const { view } = model;
  const held = heldSlots(view);
  const pause = view.pause.paused
    ? `<p class="paused">Paused${view.pause.by ? ` by ${html(view.pause.by)}` : ''}${
        view.pause.reason ? `: ${html(view.pause.reason)}` : ''
      } — nothing starts until <code>kubemaint resume</code></p>`
    : '';
  const holders = held.length
    ? ` (${held.map((s) => `${html(s.name)} → ${html(s.holder)}`).join(', ')})`
    : '';
  return (
    `<header class="summary"><h1>kubemaint · <span class="cluster">${html(view.cluster)}</span></h1>` +
    `<p class="as-of">as of <time datetime="${html(view.at)}">${html(
      localTime(Date.parse(view.at), model.zone),
    )}</time> ${html(model.zone)}</p>${pause}` +
    `<p class="window ${view.window.open ? 'open' : 'closed'}">Window: ${html(view.window.line)}</p>` +
    `<p class="slots">Slots: ${held.length} of ${view.slots.length} held${holders}</p>${bound(model)}</header>`
  );
}

/** The skew scan's bound, one line: which apiserver version bounds the kubelets, and from where. */
function bound(model: TimelineModel): string {
  if (!model.bound) return '';
  const at = localTime(Date.parse(model.bound.at), model.zone);
  return `<p class="bound">Skew: ${html(model.bound.line)} <span class="scanned">(scanned ${html(at)})</span></p>`;
}

function ranges(model: TimelineModel): string {
  const links = TIMELINE_RANGES.map((range) =>
    range === model.range
      ? `<a href="?range=${range}" aria-current="true">${range}</a>`
      : `<a href="?range=${range}">${range}</a>`,
  );
  return `<nav class="ranges">Range: ${links.join(' ')}</nav>`;
}

function timeline(model: TimelineModel): string {
  const legend = [
    ...PHASES.map((p) => `<span class="key phase-${p}">${p}</span>`),
    model.shading.open ? '<span class="key window">window open</span>' : '',
    '<span class="key freeze">freeze</span>',
    '<span class="key mark">reboot required</span>',
  ].join('');
  const always = model.shading.open
    ? ''
    : '<p class="note">No maintenance windows are configured: always open, freezes aside.</p>';
  const empty = model.rows.length === 0 ? '<p class="note">No nodes.</p>' : '';
  return `<section class="timeline-box"><div class="legend">${legend}</div>${always}${empty}${timelineSvg(model)}</section>`;
}

function requestsTable(model: TimelineModel): string {
  const { requests } = model.view;
  if (requests.length === 0)
    return '<section class="requests"><h2>Requests</h2><p class="note">No maintenance requests.</p></section>';
  const rows = requests.map(
    (r) =>
      `<tr data-request="${html(r.id)}"><td class="id"><code>${html(r.id)}</code></td><td class="node">${html(r.node)}</td>` +
      `<td>${html(r.action === 'upgrade' ? `upgrade to ${r.targetVersion ?? '?'}` : 'reboot')}</td>` +
      `<td class="state state-${html(r.state)}">${html(r.state)}</td>` +
      `<td class="since">${html(localTime(Date.parse(r.updatedAt), model.zone, true))}</td>` +
      `<td class="approvals">${approvals(model, r)}</td><td class="detail">${detail(r)}</td></tr>`,
  );
  return (
    '<section class="requests"><h2>Requests</h2><table><thead><tr><th>Request</th><th>Node</th>' +
    '<th>Action</th><th>State</th><th>Since</th><th>Approved by</th><th>Detail</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table></section>`
  );
}

function approvals(model: TimelineModel, r: MaintenanceRequest): string {
  if (r.approvals.length === 0) return r.state === 'proposed' ? 'none yet' : '—';
  return r.approvals
    .map(
      (a) =>
        `<span class="approver">${html(a.by)}</span> <span class="at">${html(
          localTime(Date.parse(a.at), model.zone),
        )}</span>`,
    )
    .join('<br>');
}

function detail(r: MaintenanceRequest): string {
  const waits = (r.blockedReasons ?? []).map((w) => `<li>${html(w)}</li>`).join('');
  const main =
    r.state === 'failed'
      ? (r.failure ?? 'failed')
      : r.state === 'running' && r.drain
        ? r.drain.message
        : r.reason;
  const by = r.requestedBy ? ` <span class="by">(asked by ${html(r.requestedBy)})</span>` : '';
  return `${html(main)}${by}${waits ? `<ul class="waits">${waits}</ul>` : ''}`;
}

/** Lines shown per node; `kubemaint history NODE` shows them all. */
const EARLIER_SHOWN = 5;

/** What retention deleted, one line each, newest first per node (issue 32). */
function earlier(model: TimelineModel): string {
  const byNode = Object.entries(model.view.earlier ?? {}).filter(([, lines]) => lines.length > 0);
  if (byNode.length === 0) return '';
  const items = byNode
    .sort(([a], [b]) => byNodeName(a, b))
    .map(([node, lines]) => {
      const shown = lines.slice(-EARLIER_SHOWN).reverse();
      const more =
        lines.length > shown.length
          ? `<li class="note">${lines.length - shown.length} more: <code>kubemaint history ${html(node)}</code></li>`
          : '';
      return `<li><span class="node">${html(node)}</span><ul>${shown.map((l) => `<li>${html(l)}</li>`).join('')}${more}</ul></li>`;
    });
  return (
    '<section class="earlier"><h2>Earlier</h2><p class="note">Ended requests retention deleted ' +
    `(one line of each is kept).</p><ul>${items.join('')}</ul></section>`
  );
}
