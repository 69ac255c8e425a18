// @ts-check
/**
 * `kubemaint-sim-host`: the host command a simulated node runs where a real one runs
 * `systemctl reboot` or a kubelet package upgrade. It reads `KUBEMAINT_SIM_HOST_URL` and `NODE_NAME`
 * (set on every pod the sim runs as a process) and asks the sim's host endpoint to act on that node.
 * It returns as soon as the host accepted, like `systemctl reboot`: the reboot happens a moment later.
 *
 * It stands for a small native command, and runs as a process of its own for every simulated reboot
 * and upgrade (a fleet roll starts dozens side by side with the executors), so it is as light as a
 * Node process can be: plain JavaScript (through tsx, or Node's type stripping, its start took 5
 * times the CPU of a bare `node`; now 1.5 times), only built-ins, and http taken with
 * `getBuiltinModule` rather than `fetch` or an `import` of `node:http`, either of which loads Node's
 * internal undici. TypeScript checks it from its JSDoc (`allowJs`, `@ts-check`).
 *
 * `--as NAME` is how the sim's shims (nsenter, systemctl, reboot and the rest of HOST_SHIMS, first
 * on a pod process's PATH) reach it: host-shim.mjs says what NAME ARGS means on a simulated node,
 * and what it refuses.
 */
import { shimAction } from './host-shim.mjs';

export { HOST_SHIMS } from './host-shim.mjs';

const USAGE = `usage: kubemaint-sim-host reboot
       kubemaint-sim-host upgrade <version>     (e.g. v1.31.4)
       kubemaint-sim-host status
       kubemaint-sim-host --as NAME ARGS…       (what the sim's shims on a pod's PATH run, e.g.
                                                 --as nsenter -m/proc/1/ns/mnt -- systemctl reboot)
env:   KUBEMAINT_SIM_HOST_URL  the sim's host endpoint (set by the sim on its pods)
       NODE_NAME               the node this host is`;

/**
 * Runs one host command; resolves to its exit code.
 * @param {readonly string[]} argv
 * @param {Record<string, string | undefined>} env
 * @param {{ stdout: (s: string) => void; stderr: (s: string) => void }} [out]
 * @param {string} [as] the shim that called (`systemctl`, …): a refusal is then said as that
 *   command says it (logind's "Failed to reboot system via logind: …"), not as this one
 * @returns {Promise<number>}
 */
export async function main(
  argv,
  env,
  out = {
    stdout: (s) => void process.stdout.write(s),
    stderr: (s) => void process.stderr.write(s),
  },
  as = undefined,
) {
  if (argv[0] === '--as') return shim(argv[1] ?? '', argv.slice(2), env, out);
  const [command, version] = argv;
  const base = env['KUBEMAINT_SIM_HOST_URL'];
  const node = env['NODE_NAME'];
  if (command === '--help' || command === '-h') {
    out.stdout(`${USAGE}\n`);
    return 0;
  }
  /** @param {string} why */
  const usage = (why) => {
    out.stderr(`kubemaint-sim-host: ${why}\n${USAGE}\n`);
    return 2;
  };
  if (!base) return usage('KUBEMAINT_SIM_HOST_URL is not set (it is set on pods the sim runs)');
  if (!node) return usage('NODE_NAME is not set (the node this host command acts on)');
  const path = `/_sim/nodes/${encodeURIComponent(node)}`;
  let request;
  if (command === 'reboot') request = { method: 'POST', path: `${path}/reboot` };
  else if (command === 'upgrade') {
    if (!version) return usage('upgrade needs a version, e.g. v1.31.4');
    request = { method: 'POST', path: `${path}/upgrade?version=${encodeURIComponent(version)}` };
  } else if (command === 'status') request = { method: 'GET', path };
  else return usage(command ? `unknown command ${JSON.stringify(command)}` : 'no command given');

  try {
    const response = await send(new URL(request.path, base), request.method);
    // logind refused the reboot (a block inhibitor): systemctl prints systemd's sentence, exits 1.
    if (response.status === 409 && as !== undefined) {
      out.stderr(`${explain(response.body).split('\n')[0]}\n`);
      return 1;
    }
    if (response.status < 200 || response.status > 299) {
      out.stderr(
        `kubemaint-sim-host: ${command} on ${node} failed (${response.status}): ${explain(response.body)}\n`,
      );
      return 1;
    }
    out.stdout(response.body);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    out.stderr(`kubemaint-sim-host: cannot reach the sim host endpoint at ${base}: ${message}\n`);
    return 1;
  }
}

/**
 * A host command called by name on a simulated node: done through the host endpoint, passed on
 * (a signal to a PID other than 1), or refused with exit 126 ("cannot execute") and the reason.
 * @param {string} name
 * @param {readonly string[]} args
 * @param {Record<string, string | undefined>} env
 * @param {{ stdout: (s: string) => void; stderr: (s: string) => void }} out
 * @returns {Promise<number>}
 */
async function shim(name, args, env, out) {
  const action = shimAction(name, args);
  if (action.kind === 'host') return main(action.argv, env, out, name);
  if (action.kind === 'refuse') {
    out.stderr(`${name} (simulated node ${env['NODE_NAME'] ?? '?'}): refused: ${action.why}\n`);
    return 126;
  }
  try {
    for (const pid of action.pids) process.kill(pid, action.signal);
    return 0;
  } catch (error) {
    out.stderr(`kill: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/**
 * One plain-HTTP request on loopback (the host endpoint is never TLS), its status and body.
 * @param {URL} url
 * @param {string} method
 * @returns {Promise<{ status: number; body: string }>}
 */
function send(url, method) {
  const http = process.getBuiltinModule('node:http');
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (/** @type {string} */ chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/**
 * The host endpoint answers `{error, hint?}`; show it as text, or the raw body if it is not that.
 * @param {string} body
 */
function explain(body) {
  try {
    /** @type {unknown} */
    const raw = JSON.parse(body);
    const parsed = /** @type {{ error?: unknown; hint?: unknown }} */ (raw);
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
