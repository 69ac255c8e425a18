/**
 * The pod runner behind the kubelets: a container whose image is mapped in the sim config
 * (`images: { "ghcr.io/kubemaint/kubemaint:*": { command: [...] } }`) runs as a LOCAL child process with
 * the container's resolved env plus `KUBECONFIG`, `NODE_NAME`, `POD_NAME`, `POD_NAMESPACE` and
 * `KUBEMAINT_SIM_HOST_URL`; its exit code becomes the container's. Its PATH starts with the host
 * shims (host-shims-dir.ts: nsenter, systemctl, reboot, … go to the simulated host), then
 * `kubemaint-sim-host`; the pod's env cannot change PATH, NODE_NAME or the host endpoint (DESIGN
 * invariant 11: a simulated node's processes never act on the real machine). The mapping stands
 * for the image's binary: it replaces `command[0]` (or the entrypoint when `command` is unset) and
 * the rest of `command` and `args` follow. Killing a pod sends SIGTERM, then SIGKILL after the grace period.
 *
 * What a process gets besides (`PodLaunch`: env, kubeconfig) is the caller's: the embedded sim
 * resolves it from its store and hands over its own kubeconfig; an attached kubelet reads it from
 * the API and mints a token bound to the pod, which takes a moment, so a launch may be a promise.
 */
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHostShims, type HostShims } from './host-shims-dir.js';
import type { Logger } from './log.js';
import type { Container } from './controllers/shapes.js';
import type { KObject, SimClock } from './types.js';

export interface ImageMapping {
  /** argv standing for the image's binary, e.g. `[process.execPath, "--import", "tsx", "src/cli/main.ts"]`. */
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
}

/** Image pattern (`*` matches anything) → local command. */
export type ImageMap = Record<string, ImageMapping>;

/** What a container's process starts with besides its image mapping. */
export interface PodLaunch {
  /** The container's resolved env (literal values, downward API, ConfigMap and Secret keys). */
  env: Record<string, string>;
  /** `KUBECONFIG` of the process; without one it gets none (an inherited one is removed). */
  kubeconfigPath?: string;
  /** Called once the process has ended or will never start (e.g. removes a per-pod kubeconfig). */
  release?: () => void;
}

/** Throws (or rejects) with the reason when the container cannot start (CreateContainerConfigError). */
export type PrepareLaunch = (pod: KObject, container: Container) => PodLaunch | Promise<PodLaunch>;

export interface ContainerExit {
  exitCode: number;
  reason?: string;
  message?: string;
}

export interface ContainerProcess {
  /** SIGTERM now, SIGKILL after `graceSimMs` of sim time if it is still running. */
  kill(graceSimMs: number): void;
}

/** Where `kubemaint-sim-host` lives, so a pod's host command finds it on PATH. */
export const SIM_BIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../bin');

const LOG_TAIL = 64 * 1024;

export function mappingFor(images: ImageMap, image: string | undefined): ImageMapping | undefined {
  if (!image) return undefined;
  for (const [pattern, mapping] of Object.entries(images)) {
    const re = new RegExp(
      `^${pattern
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    if (re.test(image)) return mapping;
  }
  return undefined;
}

export interface JobsRunner {
  mappingFor(image: string | undefined): ImageMapping | undefined;
  start(
    pod: KObject,
    container: Container,
    onExit: (exit: ContainerExit) => void,
  ): ContainerProcess;
  /**
   * The tail of a pod's output (stdout and stderr) by `namespace/name`, kept after the pod is gone
   * (a new pod under the same name starts a fresh log), for tests and `admin.logs`.
   */
  logs(podKey: string): string;
  /** The same tail for the pod with this uid, or undefined when it ran no local process. */
  output(podKey: string, uid: string): string | undefined;
  stopAll(): void;
}

export function createJobsRunner(options: {
  images: ImageMap;
  clock: SimClock;
  log: Logger;
  prepare: PrepareLaunch;
  hostUrl: () => string;
}): JobsRunner {
  const output = new Map<string, { uid: string; text: string }>();
  const running = new Set<ReturnType<typeof spawn>>();
  let stopped = false;
  // Written at the first process and removed at stopAll: a sim that runs no process writes none.
  let shims: HostShims | undefined;
  const shimsDir = (): string =>
    (shims ??= writeHostShims(resolve(SIM_BIN_DIR, 'kubemaint-sim-host'))).dir;

  const spawnContainer = (
    pod: KObject,
    container: Container,
    mapping: ImageMapping,
    launch: PodLaunch,
    onExit: (exit: ContainerExit) => void,
  ): ContainerProcess => {
    const uid = pod.metadata.uid ?? '';
    const key = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
    if (output.get(key)?.uid !== uid) output.set(key, { uid, text: '' });
    const append = (chunk: string): void => {
      const log = output.get(key);
      if (log?.uid === uid) log.text = (log.text + chunk).slice(-LOG_TAIL);
    };
    const [file, ...base] = mapping.command;
    const argv = [...base, ...(container.command?.slice(1) ?? []), ...(container.args ?? [])];
    // The shims first, then the sim's own commands, then what the sim was started with (nothing
    // before it: a fake host command planted there by a test is what a pod finds, not /usr/bin's),
    // and node last, for a mapped command that needs one.
    const inherited = process.env['PATH'] ?? '';
    const path = [shimsDir(), SIM_BIN_DIR, inherited, dirname(process.execPath)].join(':');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...mapping.env,
      ...launch.env,
      PATH: path,
      NODE_NAME: pod.spec?.['nodeName'] as string,
      POD_NAME: pod.metadata.name ?? '',
      POD_NAMESPACE: pod.metadata.namespace ?? '',
      KUBEMAINT_SIM_HOST_URL: options.hostUrl(),
    };
    // Never the runner's own KUBECONFIG by inheritance: only what the launch gives the pod.
    if (launch.kubeconfigPath) env['KUBECONFIG'] = launch.kubeconfigPath;
    else delete env['KUBECONFIG'];
    const child = spawn(file ?? process.execPath, argv, {
      cwd: mapping.cwd ?? process.cwd(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    child.stdout.setEncoding('utf8').on('data', append);
    child.stderr.setEncoding('utf8').on('data', append);
    let cancelKill: (() => void) | undefined;
    let finished = false;
    const finish = (exit: ContainerExit): void => {
      if (finished) return;
      finished = true;
      running.delete(child);
      cancelKill?.();
      launch.release?.();
      options.log.debug(
        { pod: pod.metadata.name, exitCode: exit.exitCode },
        'sim container exited',
      );
      onExit(exit);
    };
    child.on('error', (error) =>
      finish({ exitCode: 127, reason: 'StartError', message: error.message }),
    );
    child.on('close', (code, signal) => {
      const exitCode = code ?? (signal === 'SIGKILL' ? 137 : 143);
      const tail = (output.get(key)?.text ?? '').trim().split('\n').slice(-5).join('\n');
      finish({ exitCode, ...(exitCode === 0 ? {} : { message: tail.slice(-1024) }) });
    });
    return {
      kill(graceSimMs) {
        if (finished) return;
        child.kill('SIGTERM');
        cancelKill = options.clock.after(graceSimMs, () => {
          if (!finished) child.kill('SIGKILL');
        });
      },
    };
  };

  return {
    mappingFor: (image) => mappingFor(options.images, image),
    logs: (key) => output.get(key)?.text ?? '',
    output: (key, uid) => (output.get(key)?.uid === uid ? output.get(key)?.text : undefined),
    stopAll() {
      stopped = true;
      for (const child of running) child.kill('SIGKILL');
      running.clear();
      shims?.remove();
      shims = undefined;
    },
    start(pod, container, onExit) {
      const mapping = mappingFor(options.images, container.image);
      if (!mapping) throw new Error(`image ${container.image ?? ''} is not mapped`);
      const configError = (error: unknown): void => {
        const message = error instanceof Error ? error.message : String(error);
        onExit({ exitCode: 1, reason: 'CreateContainerConfigError', message });
      };
      let prepared: PodLaunch | Promise<PodLaunch>;
      try {
        // No shims, no process: without them a host command by name would reach the real machine.
        shimsDir();
        prepared = options.prepare(pod, container);
      } catch (error) {
        queueMicrotask(() => configError(error));
        return { kill: () => undefined };
      }
      if (!(prepared instanceof Promise)) {
        return spawnContainer(pod, container, mapping, prepared, onExit);
      }
      // Killed (or the runner stopped) while the launch was being prepared: it never starts.
      let process: ContainerProcess | undefined;
      let killed = false;
      prepared.then(
        (launch) => {
          if (killed || stopped) {
            launch.release?.();
            if (killed) onExit({ exitCode: 143 });
            return;
          }
          process = spawnContainer(pod, container, mapping, launch, onExit);
        },
        (error: unknown) => {
          if (!stopped) configError(error);
        },
      );
      return {
        kill(graceSimMs) {
          if (process) process.kill(graceSimMs);
          else killed = true;
        },
      };
    },
  };
}
