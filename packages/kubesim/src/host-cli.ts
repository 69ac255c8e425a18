/**
 * `kubemaint-sim-host`: the host command a simulated node runs where a real one runs
 * `systemctl reboot` or a kubelet package upgrade. It reads `KUBEMAINT_SIM_HOST_URL` and `NODE_NAME`
 * (set on every pod the sim runs as a process) and asks the sim's host endpoint to act on that node.
 * It returns as soon as the host accepted, like `systemctl reboot`: the reboot happens a moment later.
 * Only node: built-ins here, so the launcher starts fast.
 */
const USAGE = `usage: kubemaint-sim-host reboot
       kubemaint-sim-host upgrade <version>     (e.g. v1.31.4)
       kubemaint-sim-host status
env:   KUBEMAINT_SIM_HOST_URL  the sim's host endpoint (set by the sim on its pods)
       NODE_NAME               the node this host is`;

export async function main(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  out: { stdout: (s: string) => void; stderr: (s: string) => void } = {
    stdout: (s) => void process.stdout.write(s),
    stderr: (s) => void process.stderr.write(s),
  },
): Promise<number> {
  const [command, version] = argv;
  const base = env['KUBEMAINT_SIM_HOST_URL'];
  const node = env['NODE_NAME'];
  if (command === '--help' || command === '-h') {
    out.stdout(`${USAGE}\n`);
    return 0;
  }
  const usage = (why: string): number => {
    out.stderr(`kubemaint-sim-host: ${why}\n${USAGE}\n`);
    return 2;
  };
  if (!base) return usage('KUBEMAINT_SIM_HOST_URL is not set (it is set on pods the sim runs)');
  if (!node) return usage('NODE_NAME is not set (the node this host command acts on)');
  const path = `/_sim/nodes/${encodeURIComponent(node)}`;
  let request: { method: string; path: string };
  if (command === 'reboot') request = { method: 'POST', path: `${path}/reboot` };
  else if (command === 'upgrade') {
    if (!version) return usage('upgrade needs a version, e.g. v1.31.4');
    request = { method: 'POST', path: `${path}/upgrade?version=${encodeURIComponent(version)}` };
  } else if (command === 'status') request = { method: 'GET', path };
  else return usage(command ? `unknown command ${JSON.stringify(command)}` : 'no command given');

  try {
    const response = await fetch(new URL(request.path, base), { method: request.method });
    const body = await response.text();
    if (!response.ok) {
      out.stderr(
        `kubemaint-sim-host: ${command} on ${node} failed (${response.status}): ${explain(body)}\n`,
      );
      return 1;
    }
    out.stdout(body);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    out.stderr(`kubemaint-sim-host: cannot reach the sim host endpoint at ${base}: ${message}\n`);
    return 1;
  }
}

/** The host endpoint answers `{error, hint?}`; show it as text, or the raw body if it is not that. */
function explain(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; hint?: unknown };
    if (typeof parsed.error === 'string') {
      return typeof parsed.hint === 'string'
        ? `${parsed.error}\nhint: ${parsed.hint}`
        : parsed.error;
    }
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return body.trim();
}
