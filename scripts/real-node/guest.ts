/**
 * The files every node's disk carries on top of the Debian root file system: the kubelet's unit and
 * configuration, containerd's, the pod network (a bridge local to the VM), the network address, and the
 * unit that takes a node's identity from its seed disk at boot. Nothing here names a node: the per-node
 * part (name, certificate, kubelet port, SSH key) is the seed disk (seed.ts), so one disk image per
 * kubelet version (and set of images, preload.ts) serves every node. A kubeadm node (kubeadmKubelet)
 * has the kubelet laid out as Kubernetes' packages and `kubeadm join` leave it.
 */
import type { KubernetesVersion } from '../real-cluster/versions.js';
import { APT_KEYRING_FILE, APT_SOURCE_FILE, aptSourceLine } from './apt-repo.js';
import { PKGS_GUEST_ADDRESS, PKGS_HOST } from './pkgs-server.js';

/** The address the guest's kubeconfig names; `/etc/hosts` maps `kubernetes` (in the apiserver's certificate) to it. */
export const APISERVER_GUEST_ADDRESS = '10.0.2.100';
export const APISERVER_GUEST_PORT = 6443;
/** QEMU user networking's default guest address, set statically (no DHCP wait at boot). */
export const NODE_IP = '10.0.2.15';
/** Pods get addresses from here; the subnet exists only inside its VM. */
export const POD_SUBNET = '10.244.0.0/24';
/** The seed disk's label and where the guest mounts it. */
export const SEED_LABEL = 'kmseed';
const SEED_MOUNT = '/run/kubemaint-seed';
/** The local sandbox image (seed.ts builds it; no registry is ever asked). */
export const SANDBOX_IMAGE = 'kubemaint.local/pause:1';

/** containerd's CRI socket: a kubelet flag on a kubeadm node (kubeadm-flags.env), in the config otherwise. */
export const CRI_SOCKET = 'unix:///run/containerd/containerd.sock';

/**
 * The kubelet configuration every node shares: on a kubeadm node it is the kube-system/kubelet-config
 * ConfigMap's (what `kubeadm upgrade node` writes to /var/lib/kubelet/config.yaml), so nothing in it
 * names one node or its runtime socket. Like kubeadm's default, it leaves graceful shutdown off.
 */
export const SHARED_KUBELET_CONFIG = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: /etc/kubernetes/pki/ca.crt }
authorization:
  mode: Webhook
cgroupDriver: systemd
failSwapOn: false
# TCG is slow: a node that reports every 10 s is plenty, and spares the guest's one emulated CPU.
nodeStatusReportFrequency: 1m
serializeImagePulls: false
# Under TCG on a loaded machine, creating one pod sandbox took over the default 2 min: the kubelet gave
# up (DeadlineExceeded) and tried again, for ever.
runtimeRequestTimeout: 10m
resolvConf: /etc/resolv.conf
# A small disk: do not let image garbage collection decide the test's images are unused.
imageGCHighThresholdPercent: 100
evictionHard:
  memory.available: 50Mi
  nodefs.available: 1%
  imagefs.available: 1%
`;

/**
 * The standalone node's kubelet (kubemaint-vm-1) shuts down gracefully: it holds a logind delay
 * inhibitor, so pods get a SIGTERM from the kubelet before a reboot. A kubeadm node keeps kubeadm's
 * default, graceful shutdown off (SHARED_KUBELET_CONFIG has no shutdownGracePeriod): test:node sees
 * what a reboot does to pods without it.
 */
export const GRACEFUL_SHUTDOWN = { period: '20s', criticalPods: '5s' };

const KUBELET_CONFIG = `${SHARED_KUBELET_CONFIG}containerRuntimeEndpoint: ${CRI_SOCKET}
shutdownGracePeriod: ${GRACEFUL_SHUTDOWN.period}
shutdownGracePeriodCriticalPods: ${GRACEFUL_SHUTDOWN.criticalPods}
`;

const KUBELET_UNIT = `[Unit]
Description=kubelet (kubemaint real node)
Wants=containerd.service
After=containerd.service kubemaint-seed.service
Requires=kubemaint-seed.service

[Service]
EnvironmentFile=${SEED_MOUNT}/kubelet.env
ExecStart=/usr/bin/kubelet --config=/etc/kubernetes/kubelet-config.yaml --kubeconfig=/etc/kubernetes/kubelet.kubeconfig --hostname-override=\${NODE_NAME} --node-ip=${NODE_IP} --port=\${KUBELET_PORT} --v=1
Restart=always
RestartSec=2

[Install]
WantedBy=multi-user.target
`;

/** Mounts the seed disk and takes the node's identity from it, before anything that uses it. */
const SEED_UNIT = `[Unit]
Description=kubemaint node identity from the seed disk
DefaultDependencies=no
After=local-fs.target systemd-udevd.service
Before=ssh.service containerd.service kubelet.service network-pre.target
Wants=network-pre.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/kubemaint-seed

[Install]
WantedBy=multi-user.target
`;

/** Where `kubeadm join` leaves the shared kubelet configuration and the node's own kubelet flags. */
export const KUBEADM_KUBELET_CONFIG = '/var/lib/kubelet/config.yaml';
export const KUBEADM_FLAGS_FILE = '/var/lib/kubelet/kubeadm-flags.env';

const SEED_SCRIPT = `#!/bin/sh
# The node's identity from its seed disk (made by npm run real-node -- up): name, certificate, SSH key.
set -eu
mkdir -p ${SEED_MOUNT}
for i in $(seq 1 50); do [ -e /dev/disk/by-label/${SEED_LABEL} ] && break; sleep 0.2; done
mountpoint -q ${SEED_MOUNT} || mount -o ro /dev/disk/by-label/${SEED_LABEL} ${SEED_MOUNT}
. ${SEED_MOUNT}/kubelet.env
hostname "$NODE_NAME"
echo "$NODE_NAME" >/etc/hostname
install -d -m 0700 /root/.ssh /etc/kubernetes/pki
install -m 0600 ${SEED_MOUNT}/authorized_keys /root/.ssh/authorized_keys
install -m 0644 ${SEED_MOUNT}/ca.crt /etc/kubernetes/pki/ca.crt
install -m 0644 ${SEED_MOUNT}/kubelet-client.crt /etc/kubernetes/pki/kubelet-client.crt
install -m 0600 ${SEED_MOUNT}/kubelet-client.key /etc/kubernetes/pki/kubelet-client.key
# A kubeadm node's own kubelet flags, as \`kubeadm join\` writes them once (\`kubeadm upgrade node\` edits them).
# Not empty: kubemaint's agent mounts that path (FileOrCreate), which leaves an empty file on other nodes.
if [ -s ${KUBEADM_KUBELET_CONFIG} ] && [ ! -e ${KUBEADM_FLAGS_FILE} ]; then
  printf 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=${CRI_SOCKET} --hostname-override=%s --node-ip=${NODE_IP} --port=%s"\n' "$NODE_NAME" "$KUBELET_PORT" >${KUBEADM_FLAGS_FILE}
fi
`;

/** The `kubernetes` Service's address inside the cluster (real-cluster's service range is 10.0.0.0/24). */
export const KUBERNETES_SERVICE_IP = '10.0.0.1';

/**
 * There is no kube-proxy: these rules do its one job the pods need — the `kubernetes` Service's address
 * (what in-cluster clients dial, and a name in the apiserver's certificate) reaches the apiserver's
 * forward. Masquerading makes the pods' connections come from the node's address, the only one QEMU's
 * user network answers.
 */
const SERVICE_NAT_SCRIPT = `#!/bin/sh
set -eu
rule() { iptables -t nat -C "$@" 2>/dev/null || iptables -t nat -A "$@"; }
for chain in PREROUTING OUTPUT; do
  rule $chain -d ${KUBERNETES_SERVICE_IP}/32 -p tcp --dport 443 -j DNAT --to-destination ${APISERVER_GUEST_ADDRESS}:${APISERVER_GUEST_PORT}
done
rule POSTROUTING -s ${POD_SUBNET} -d ${APISERVER_GUEST_ADDRESS}/32 -j MASQUERADE
`;

const SERVICE_NAT_UNIT = `[Unit]
Description=the kubernetes Service's address reaches the apiserver (kube-proxy's one job here)
After=network-pre.target systemd-modules-load.service
Before=kubelet.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/kubemaint-service-nat

[Install]
WantedBy=multi-user.target
`;

const KUBELET_KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: kubemaint-real
    cluster:
      server: https://kubernetes:${APISERVER_GUEST_PORT}
      certificate-authority: /etc/kubernetes/pki/ca.crt
users:
  - name: kubelet
    user:
      client-certificate: /etc/kubernetes/pki/kubelet-client.crt
      client-key: /etc/kubernetes/pki/kubelet-client.key
contexts:
  - name: kubemaint-real
    context: { cluster: kubemaint-real, user: kubelet }
current-context: kubemaint-real
`;

const CONTAINERD_CONFIG = `version = 2

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${SANDBOX_IMAGE}"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "/etc/cni/net.d"
`;

const CNI_CONFLIST = JSON.stringify(
  {
    cniVersion: '1.0.0',
    name: 'kubemaint-pods',
    plugins: [
      {
        type: 'bridge',
        bridge: 'cni0',
        isGateway: true,
        // Pods talk to nothing outside their VM (restrict=on drops it anyway): no masquerading.
        ipMasq: false,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: POD_SUBNET }]],
          routes: [{ dst: '0.0.0.0/0' }],
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
      { type: 'loopback' },
    ],
  },
  null,
  2,
);

const NETWORK = `[Match]
Name=eth0

[Network]
Address=${NODE_IP}/24
Gateway=10.0.2.2
LinkLocalAddressing=no
IPv6AcceptRA=no
`;

const HOSTS = `127.0.0.1 localhost
${APISERVER_GUEST_ADDRESS} kubernetes
${PKGS_GUEST_ADDRESS} ${PKGS_HOST}
`;

export interface GuestFile {
  content: string | Buffer;
  mode: number;
}

/** The kubelet as kubemaint's own unit runs it: one binary, flags from the seed disk. */
const STANDALONE_KUBELET: Record<string, GuestFile> = {
  '/etc/kubernetes/kubelet-config.yaml': { content: KUBELET_CONFIG, mode: 0o644 },
  '/etc/kubernetes/kubelet.kubeconfig': { content: KUBELET_KUBECONFIG, mode: 0o644 },
  '/etc/systemd/system/kubelet.service': { content: KUBELET_UNIT, mode: 0o644 },
};

/** What a kubeadm node's packages come from: the test repository served as pkgs.k8s.io. */
export interface KubeadmNode {
  version: KubernetesVersion;
  /** The repository's public key (binary keyring): the apt source's `signed-by`. */
  keyring: Buffer;
  /** The CA that signed the test server's certificate for pkgs.k8s.io. */
  caCert: string;
}

/** Where the guest's CA store takes a local CA from (update-ca-certificates; disk.ts appends it to the bundle too). */
export const LOCAL_CA_FILE = '/usr/local/share/ca-certificates/kubemaint-test-ca.crt';

/**
 * A node as `kubeadm join` leaves it (the kubelet, kubeadm and kubectl packages, installed by disk.ts):
 * the packages' unit and drop-in run the kubelet from /var/lib/kubelet/config.yaml (the shared
 * configuration), /etc/kubernetes/kubelet.conf and kubeadm-flags.env (the seed script writes it, as
 * join does); apt's source is the real pkgs.k8s.io line of the kubelet's minor, signed-by the test key.
 */
function kubeadmKubelet(node: KubeadmNode): Record<string, GuestFile> {
  return {
    [KUBEADM_KUBELET_CONFIG]: { content: SHARED_KUBELET_CONFIG, mode: 0o644 },
    '/etc/kubernetes/kubelet.conf': { content: KUBELET_KUBECONFIG, mode: 0o600 },
    // The node's identity (certificate, flags) comes from the seed disk first; in /etc, so apt keeps it.
    '/etc/systemd/system/kubelet.service.d/20-kubemaint-seed.conf': {
      content:
        '[Unit]\nAfter=containerd.service kubemaint-seed.service\nRequires=kubemaint-seed.service\n',
      mode: 0o644,
    },
    [APT_SOURCE_FILE]: { content: aptSourceLine(node.version), mode: 0o644 },
    [APT_KEYRING_FILE]: { content: node.keyring, mode: 0o644 },
    [LOCAL_CA_FILE]: { content: node.caCert, mode: 0o644 },
    // Debian's mirrors are out of reach (restrict=on): `apt-get update` asks pkgs.k8s.io only.
    '/etc/apt/sources.list': {
      content: "# Debian's mirrors are out of this VM's reach; only pkgs.k8s.io is served\n",
      mode: 0o644,
    },
  };
}

/** Files written into the image: path (absolute in the guest) → content and mode. */
export function guestFiles(kubeadm?: KubeadmNode): Record<string, GuestFile> {
  return { ...(kubeadm ? kubeadmKubelet(kubeadm) : STANDALONE_KUBELET), ...COMMON_FILES };
}

const COMMON_FILES: Record<string, GuestFile> = {
  '/etc/systemd/system/kubemaint-seed.service': { content: SEED_UNIT, mode: 0o644 },
  '/usr/local/sbin/kubemaint-seed': { content: SEED_SCRIPT, mode: 0o755 },
  '/etc/systemd/system/kubemaint-service-nat.service': { content: SERVICE_NAT_UNIT, mode: 0o644 },
  '/usr/local/sbin/kubemaint-service-nat': { content: SERVICE_NAT_SCRIPT, mode: 0o755 },
  '/etc/containerd/config.toml': { content: CONTAINERD_CONFIG, mode: 0o644 },
  '/etc/cni/net.d/10-kubemaint-pods.conflist': { content: `${CNI_CONFLIST}\n`, mode: 0o644 },
  '/etc/systemd/network/10-eth0.network': { content: NETWORK, mode: 0o644 },
  '/etc/hosts': { content: HOSTS, mode: 0o644 },
  '/etc/resolv.conf': { content: '# no DNS: nothing outside the VM is reachable\n', mode: 0o644 },
  '/etc/modules-load.d/kubernetes.conf': { content: 'overlay\nbr_netfilter\n', mode: 0o644 },
  '/etc/sysctl.d/90-kubernetes.conf': {
    content:
      'net.ipv4.ip_forward = 1\nnet.bridge.bridge-nf-call-iptables = 1\nnet.bridge.bridge-nf-call-ip6tables = 1\n',
    mode: 0o644,
  },
  // A container whose PID 1 ignores SIGTERM would hold a reboot 90 s per unit (real-node.md pitfall 1).
  '/etc/systemd/system.conf.d/10-stop-timeout.conf': {
    content: '[Manager]\nDefaultTimeoutStopSec=10s\n',
    mode: 0o644,
  },
  // Nothing to mount but the root, which the kernel mounts read-write.
  '/etc/fstab': { content: '# root: root=/dev/vda rw on the kernel command line\n', mode: 0o644 },
  '/etc/ssh/sshd_config.d/kubemaint.conf': {
    content: 'PermitRootLogin prohibit-password\nPasswordAuthentication no\nUseDNS no\n',
    mode: 0o644,
  },
};

/** Units enabled in the image: [unit file, the target whose .wants/ gets the link]. */
export const enabledUnits = (kubeadm: boolean): [string, string][] => [
  // The kubelet package's unit, as `systemctl enable kubelet` after installing it links it.
  [
    kubeadm ? '/usr/lib/systemd/system/kubelet.service' : '/etc/systemd/system/kubelet.service',
    'multi-user.target',
  ],
  ['/etc/systemd/system/kubemaint-seed.service', 'multi-user.target'],
  ['/etc/systemd/system/kubemaint-service-nat.service', 'multi-user.target'],
  ['/lib/systemd/system/systemd-networkd.service', 'multi-user.target'],
];

/** The kernel command line: the root is the first virtio disk, the console the serial port. */
export const KERNEL_APPEND = 'root=/dev/vda rw console=ttyS0 net.ifnames=0 apparmor=0';
