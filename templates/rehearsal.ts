/**
 * What `kubemaint rehearse` prints (issue 21): the report as text, and `--html`'s timeline, one row
 * per node, drawn by the status page's own SVG (templates/status-page, ADR 0019) from the twin's
 * requests, in one self-contained file (the styles inline: it is opened from disk, not served).
 */
import type { RehearsalReport } from '../src/app/control/rehearsal.js';
import type { FleetView } from '../src/app/control/fleet-view.js';
import type { MaintenanceRequest } from '../src/core/request.js';
import type { Schedule } from '../src/core/windows.js';
import { html } from './status-page/escape.js';
import { PAGE_STYLE } from './status-page/assets.js';
import { timelineModel } from './status-page/model.js';
import { timelineSvg } from './status-page/timeline-svg.js';

const time = (iso: string | undefined): string => (iso ? iso.slice(11, 16) : '—');

export function rehearsalText(report: RehearsalReport): string {
  const c = report.campaign;
  const lines = [
    `Rehearsal of ${report.cluster} from ${report.at} (twin; nothing was written to the cluster)`,
    `durations: reboot ${report.durations.reboot.said}; upgrade ${report.durations.upgrade.said}`,
    report.window.closesAt ? `window closes ${report.window.closesAt}` : 'no maintenance window',
    '',
    `${'node'.padEnd(24)} ${'slot'.padEnd(17)} start  end    window        state`,
    ...report.nodes.map(
      (n) =>
        `${n.node.padEnd(24)} ${(n.slot ?? '—').padEnd(17)} ${time(n.start).padEnd(6)} ${time(n.end).padEnd(6)} ${n.window.padEnd(13)} ${n.state}`,
    ),
    '',
  ];
  for (const n of report.nodes) {
    const notes = [
      ...n.pdbWaits.map(
        (w) => `waits on PDB ${w.pdb}${w.pod ? ` (${w.pod})` : ''} ${w.minutes} min`,
      ),
      ...n.cannotEvict.map((p) => `cannot evict ${p.pod}: ${p.why}`),
      ...n.gates.map((g) => `held: ${g}`),
      ...(n.failure ? [`failure: ${n.failure}`] : []),
    ];
    if (notes.length) lines.push(`${n.node}:`, ...notes.map((note) => `  ${note}`));
  }
  lines.push(
    '',
    `campaign: ${c.nodes} nodes, ${c.done} done, ${c.finishedInWindow} finished inside the window, ${c.totalMinutes} min in all (rehearsal ${report.ended})`,
    `capacity low point: ${c.pendingPodsPeak.pods} pods pending${c.pendingPodsPeak.at ? ` at ${time(c.pendingPodsPeak.at)}` : ''}`,
    ...c.gates.map((g) => `gate not rehearsed: ${g}`),
    `first decision: ${c.firstDecision}`,
    ...report.skipped.map((s) => `skipped ${s.kind}: ${s.why}`),
  );
  return `${lines.join('\n')}\n`;
}

export function rehearsalHtml(
  report: RehearsalReport,
  history: readonly MaintenanceRequest[],
  options: { schedule: Schedule; zone: string },
): string {
  // Tonight's requests: a request that had ended before the rehearsal began is last night's.
  const tonight = history.filter((r) => Date.parse(r.updatedAt) >= Date.parse(report.at));
  const nodes = [...new Set(tonight.map((r) => r.node))].map((name) => ({
    name,
    marked: true,
    ready: 'True',
    unschedulable: false,
  }));
  const view: FleetView = {
    at: report.endedAt,
    cluster: report.cluster,
    pause: { paused: false },
    window: { open: false, line: report.window.closesAt ? `closes ${report.window.closesAt}` : '' },
    requests: [],
    nodes,
    slots: [],
    history: tonight,
  };
  const model = timelineModel(view, {
    schedule: options.schedule,
    zone: options.zone,
    range: 'fit',
    now: new Date(report.endedAt),
  });
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>kubemaint rehearsal · ${html(report.cluster)}</title>
<style>${PAGE_STYLE}</style></head>
<body><main>
<h1>Rehearsal of ${html(report.cluster)} from ${html(report.at)}</h1>
<p>${html(report.campaign.firstDecision)}</p>
${timelineSvg(model)}
<pre>${html(rehearsalText(report))}</pre>
</main></body></html>
`;
}
