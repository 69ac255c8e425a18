/**
 * `kubemaint status` as a person reads it (a table, newest first, blocked reasons under their row)
 * and as a script reads it (`--json`: one document, every request with its timestamps). Both print
 * the FleetView that serve's `/metrics` shows (app/control/fleet-view.ts): the counts by state, the
 * slots and the marked nodes are the same numbers. Every value in the table is shown one line each,
 * control characters visible (core/printable.ts): a node name or reason cannot forge a row or drive
 * the terminal.
 */
import { heldSlots, stateCounts, type FleetView } from '../src/app/control/fleet-view.js';
import { gracefulShutdownWarning } from '../src/core/graceful-shutdown.js';
import { isActive, type MaintenanceRequest } from '../src/core/request.js';
import { formatDuration } from '../src/core/duration.js';
import { printable } from '../src/core/printable.js';

export type StatusView = Pick<FleetView, 'requests' | 'pause' | 'slots'> &
  Partial<Pick<FleetView, 'nodes' | 'window'>> & {
    /** Request id → whether it fits the open window ("fits: about 7 min, window closes in 42 min"). */
    fits?: Readonly<Record<string, string>>;
  };

export function statusJson(view: StatusView): string {
  return `${JSON.stringify(statusObject(view), null, 2)}\n`;
}

/** The document `--json` prints for one cluster. */
export function statusObject(view: StatusView): Record<string, unknown> {
  return {
    paused: view.pause.paused,
    ...(view.pause.paused ? { pause: view.pause } : {}),
    ...(view.window ? { window: view.window } : {}),
    slots: view.slots.map((s) => ({ name: s.name, holder: s.holder || null })),
    counts: stateCounts(view),
    ...(view.nodes
      ? { rebootRequired: view.nodes.filter((n) => n.marked).map((n) => n.name) }
      : {}),
    requests: view.requests.map((r) => ({
      id: r.id,
      node: r.node,
      action: r.action,
      ...(r.targetVersion ? { targetVersion: r.targetVersion } : {}),
      state: r.state,
      reason: r.reason,
      reasons: r.blockedReasons ?? [],
      requestedBy: r.requestedBy,
      approvals: r.approvals,
      ...(r.campaign ? { campaign: r.campaign } : {}),
      ...(r.drain ? { drain: r.drain.message } : {}),
      ...(r.failure ? { failure: r.failure } : {}),
      ...(view.fits?.[r.id] ? { fit: view.fits[r.id] } : {}),
      ...(shutdownWarning(view, r) ? { gracefulShutdown: shutdownWarning(view, r) } : {}),
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    })),
  };
}

/**
 * `cluster`: the cluster the view is of, when the config lists several, so the commands it
 * suggests name it (`kubemaint approve --cluster staging r-…`).
 */
export function statusTable(view: StatusView, now: Date, cluster?: string): string {
  const lines: string[] = [];
  if (view.pause.paused) {
    lines.push(
      `PAUSED by ${printable(view.pause.by ?? '?')}${view.pause.reason ? `: ${printable(view.pause.reason)}` : ''} (resume with \`kubemaint resume\`)`,
      '',
    );
  }
  if (view.requests.length === 0) {
    lines.push(
      'no maintenance requests (the tick proposes them; `kubemaint scan` shows what it would find)',
    );
  } else {
    const rows = view.requests.map((r) =>
      [
        r.id,
        r.node,
        r.action === 'upgrade' ? `upgrade ${r.targetVersion ?? ''}`.trim() : 'reboot',
        r.state,
        formatDuration(Math.max(0, now.getTime() - Date.parse(r.updatedAt))),
        withFit(detail(r, cluster), view.fits?.[r.id]),
      ].map((cell) => printable(cell)),
    );
    lines.push(...table([['REQUEST', 'NODE', 'ACTION', 'STATE', 'SINCE', 'DETAIL'], ...rows]));
    for (const r of view.requests) {
      for (const reason of r.blockedReasons ?? [])
        lines.push(`  ${printable(r.id)} waits: ${printable(reason)}`);
      const warning = shutdownWarning(view, r);
      if (warning) lines.push(`  ${printable(r.id)} warning: ${printable(warning)}`);
    }
  }
  const held = heldSlots(view);
  lines.push(
    '',
    `slots: ${held.length} of ${view.slots.length} held${held.length ? ` (${held.map((s) => printable(`${s.name} → ${s.holder}`)).join(', ')})` : ''}`,
  );
  if (view.window) lines.push(`window: ${printable(view.window.line)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * A reboot still to come whose node's kubelet would not stop its pods gracefully (ADR 0049). Only
 * before the host command: after it, the reboot has happened or is happening.
 */
function shutdownWarning(view: StatusView, r: MaintenanceRequest): string | undefined {
  if (r.action !== 'reboot' || !isActive(r.state) || r.state === 'verifying') return undefined;
  const fact = view.nodes?.find((n) => n.name === r.node)?.gracefulShutdown;
  return fact ? gracefulShutdownWarning(fact) : undefined;
}

const withFit = (text: string, fit: string | undefined): string => (fit ? `${text}; ${fit}` : text);

function detail(r: MaintenanceRequest, cluster: string | undefined): string {
  if (r.state === 'failed' || r.state === 'skipped') return r.failure ?? r.state;
  if (r.state === 'running' && r.drain) return r.drain.message;
  if (r.state === 'proposed')
    return `${r.reason} — approve: kubemaint approve ${cluster ? `--cluster ${cluster} ` : ''}${r.id}`;
  if (r.state === 'approved') {
    const by = r.approvals.map((a) => a.by).join(', ');
    return r.blockedReasons?.length ? `approved by ${by}; waiting` : `approved by ${by}`;
  }
  return r.reason;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
