/**
 * `npm run real-cluster -- <command>`: a real Kubernetes control plane built from its Go modules, for
 * the tests that need ground truth (RBAC, admission, the real controllers). See README "Tests on a real
 * control plane". Errors are one line and a non-zero exit; the last line of `up` is the kubeconfig path.
 */
import { Command, InvalidArgumentError } from 'commander';
import { APISERVER, build, cachedBuild } from './build.js';
import { DEFAULT_STATE_DIR, down, readState, up } from './control-plane.js';
import { RealClusterError } from './errors.js';
import { startExtraApiserver, stopExtraApiservers } from './extra-apiserver.js';
import { probe } from './probe.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
  PREVIOUS_MINOR_RELEASE,
  cacheDirFor,
} from './versions.js';

const say = (line: string) => process.stderr.write(`${line}\n`);

function portOption(raw: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('a port is a whole number from 0 (any free port) to 65535');
  }
  return port;
}

const program = new Command('real-cluster')
  .description(
    'Build and run a real Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler)\n' +
      "from Kubernetes' Go modules, on loopback, with TLS, client-certificate and service-account authentication,\n" +
      'Node+RBAC authorisation and ValidatingAdmissionPolicy. Binaries are cached per version under\n' +
      '$XDG_CACHE_HOME/kubemaint/kubernetes (else ~/.cache/…). Nodes come from `kubemaint sim --attach`.',
  )
  .option(
    '--kubernetes-version <version>',
    'Kubernetes release to build and run',
    process.env['KUBEMAINT_K8S_VERSION'] ?? DEFAULT_KUBERNETES_VERSION,
  )
  .option(
    '--dir <path>',
    'state folder: certificates, etcd data, logs, kubeconfigs',
    DEFAULT_STATE_DIR,
  )
  .showHelpAfterError();

const versionOf = () =>
  parseKubernetesVersion(program.opts<{ kubernetesVersion: string }>().kubernetesVersion);
const dirOf = () => program.opts<{ dir: string }>().dir;

program
  .command('build')
  .description('build (or find in the cache) the binaries for the version; prints their folder')
  .option(
    '--previous-apiserver',
    `also build the kube-apiserver of ${PREVIOUS_MINOR_RELEASE} that test:real starts beside the\n` +
      'control plane (an HA control plane in the middle of its upgrade; cached like the rest)',
  )
  .action(async (options: { previousApiserver?: boolean }) => {
    const built = await build(versionOf(), say);
    console.log(built.dir);
    if (options.previousApiserver) {
      console.log(
        (await build(parseKubernetesVersion(PREVIOUS_MINOR_RELEASE), say, APISERVER)).dir,
      );
    }
  });

program
  .command('up')
  .description(
    'start the control plane (building it first if needed); prints the admin kubeconfig path last',
  )
  .option('--port <port>', 'apiserver port on 127.0.0.1 (0: any free port)', portOption, 0)
  .option('--fresh', 'start from empty etcd data instead of what the last run stored')
  .action(async (options: { port: number; fresh?: boolean }) => {
    const state = await up({
      version: versionOf(),
      dir: dirOf(),
      port: options.port,
      fresh: options.fresh ?? false,
      say,
    });
    say(
      `Kubernetes ${state.version} is up at ${state.server}; stop it with: npm run real-cluster -- down`,
    );
    console.log(state.kubeconfig);
  });

program
  .command('down')
  .description('stop exactly the processes `up` started in the state folder')
  .option('--purge', 'also delete the state folder (certificates, etcd data, logs)')
  .action(async (options: { purge?: boolean }) => {
    const stopped = await down(dirOf(), { purge: options.purge ?? false });
    say(stopped ? 'stopped' : `nothing was running from ${dirOf()}`);
  });

program
  .command('apiserver')
  .description(
    'start one more kube-apiserver on the running etcd (same PKI, own port and host name, the\n' +
      'mixed-version proxy on so its identity Lease advertises its address); --stop stops them all',
  )
  .option(
    '--emulated-version <minor>',
    "the minor it emulates (KEP-4330): the binary's or the one below, e.g. 1.33",
  )
  .option(
    '--binary-version <release>',
    "its binary's release when not the control plane's: the same minor or one below, e.g. 1.33.13\n" +
      '(built once, like the control plane: an HA control plane in the middle of an upgrade)',
  )
  .option('--stop', 'stop every apiserver this command started')
  .action(async (options: { binaryVersion?: string; emulatedVersion?: string; stop?: boolean }) => {
    if (options.stop) {
      const stopped = await stopExtraApiservers({ dir: dirOf() });
      say(stopped ? `stopped ${stopped}` : 'no extra apiserver was running');
      return;
    }
    const extra = await startExtraApiserver({
      dir: dirOf(),
      ...(options.binaryVersion ? { binaryVersion: options.binaryVersion } : {}),
      ...(options.emulatedVersion ? { emulatedVersion: options.emulatedVersion } : {}),
      say,
    });
    console.log(`https://127.0.0.1:${extra.port}`);
  });

program
  .command('env')
  .description(
    'print shell exports for the running cluster: eval "$(npm run -s real-cluster -- env)"',
  )
  .action(() => {
    const state = readState(dirOf());
    if (!state)
      throw new RealClusterError(
        `no control plane is up from ${dirOf()}: start one with npm run real-cluster -- up`,
      );
    console.log(`export KUBECONFIG=${state.kubeconfig}`);
    console.log(`export KUBEMAINT_REAL_KUBECONFIG=${state.kubeconfig}`);
  });

program
  .command('status')
  .description('is it up, which version, where; and whether the binaries are cached')
  .action(async () => {
    const version = versionOf();
    const cached = cachedBuild(version);
    console.log(
      `binaries: ${cached ? `${cached.dir} (built in ${cached.info.seconds} s, etcd ${cached.info.etcd}, Go ${cached.info.go})` : `not built yet (${cacheDirFor(version)})`}`,
    );
    const state = readState(dirOf());
    if (!state) {
      console.log('cluster: down');
      return;
    }
    const live = await probe(`${state.server}/livez`, {
      ca: `${state.dir}/pki/ca.crt`,
      cert: `${state.dir}/pki/admin.crt`,
      key: `${state.dir}/pki/admin.key`,
    });
    console.log(
      `cluster: ${live.status === 200 ? 'up' : `not answering (livez ${live.status || 'no answer'})`} ${state.version} ${state.server}`,
    );
    console.log(`kubeconfig: ${state.kubeconfig}`);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof RealClusterError) {
    say(`real-cluster: ${error.message}`);
    process.exit(error.message.includes('busy') ? 3 : 1);
  }
  throw error;
}
