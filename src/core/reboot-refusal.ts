/**
 * Whether a failed host command was systemd refusing the reboot, read from what `systemctl reboot`
 * printed, in systemd's own words (src/systemctl/systemctl-logind.c, src/login/logind-dbus.c):
 *
 * - logind refusing for a block inhibitor, which it does for root too since systemd 257 (PR
 *   #30307): v258 answers BUS_ERROR_BLOCKED_BY_INHIBITOR_LOCK "Operation denied due to active block
 *   inhibitor", v257 "Access denied due to active block inhibitor", and systemctl prints
 *   "Failed to reboot system via logind: <that>";
 * - systemctl's own check (a non-root caller on a terminal, or `--check-inhibitors=yes`):
 *   `Operation inhibited by "WHO" (PID N "COMM", user U), reason is "WHY".` then "Please retry
 *   operation after closing inhibitors and logging out other users.";
 * - logind refusing for another reason (polkit): "Failed to reboot system via logind: …", or
 *   "Call to Reboot failed: …" from older systemctl.
 *
 * A refusal is told apart from a slow reboot at once (the command exits non-zero), so the request
 * fails with the reason instead of waiting for a bootID that will not change. Pure.
 */

export interface RebootRefusal {
  kind: 'inhibitor' | 'logind';
  /** Who holds the lock and why, when systemd said (its client-side check names them). */
  holder?: { who: string; why: string };
  /** systemd's line that said so. */
  line: string;
}

const BLOCKED = /(?:Operation|Access) denied due to active block inhibitor|BlockedByInhibitorLock/;
const INHIBITED_BY =
  /Operation inhibited by "([^"]*)" \(PID \d+ "[^"]*", user [^)]*\), reason is "([^"]*)"/;
const LOGIND =
  /Failed to (?:reboot|power off|halt|kexec reboot) system via logind: |Call to (?:Reboot|PowerOff|Halt)(?:WithFlags)? failed: /;

/** The refusal in `output` (a host command's stderr and stdout), or undefined when it is none. */
export function rebootRefusal(output: string): RebootRefusal | undefined {
  const lines = output.split('\n').map((l) => l.trim());
  const by = lines.find((l) => INHIBITED_BY.test(l));
  if (by) {
    const [, who = '', why = ''] = INHIBITED_BY.exec(by) ?? [];
    return { kind: 'inhibitor', holder: { who, why }, line: by };
  }
  const blocked = lines.find((l) => BLOCKED.test(l));
  if (blocked) return { kind: 'inhibitor', line: blocked };
  const logind = lines.find((l) => LOGIND.test(l));
  if (logind) return { kind: 'logind', line: logind };
  return undefined;
}

/** One sentence for the request's failure and the node's Event. */
export function describeRefusal(refusal: RebootRefusal): string {
  if (refusal.kind === 'logind') return `systemd refused the reboot: ${refusal.line}`;
  const holder = refusal.holder
    ? ` ("${refusal.holder.who}" holds it: ${refusal.holder.why})`
    : ' (`systemd-inhibit --list --mode=block` on the node shows who holds it)';
  return `systemd refused the reboot: a block inhibitor on shutdown is held${holder}: ${refusal.line}`;
}
