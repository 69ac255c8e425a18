/**
 * Which of kubemaint's kubelet upgrade scripts fits a node, from its `status.nodeInfo.osImage` (the
 * kubelet reports /etc/os-release's PRETTY_NAME there: "Ubuntu 22.04.4 LTS", "Rocky Linux 9.3 (Blue
 * Onyx)"). Debian and Ubuntu install with apt, the RHEL family with dnf; everything else has no
 * built-in upgrade, and says why rather than guessing (docs/upgrades.md). Pure.
 */

export type PackageFamily = 'apt' | 'dnf';

const APT = [/^debian\b/i, /^ubuntu\b/i];
const DNF = [
  /^red hat enterprise linux\b/i,
  /^rocky linux\b/i,
  /^almalinux\b/i,
  /^centos stream\b/i,
  /^oracle linux\b/i,
  /^fedora\b/i,
];

/** Systems whose own tooling upgrades the kubelet, with what to use instead. */
const OWN_WAY: [RegExp, string][] = [
  [/^talos\b/i, 'Talos upgrades Kubernetes with talosctl upgrade-k8s'],
  [/^bottlerocket\b/i, 'Bottlerocket nodes are replaced or updated with their own update operator'],
  [
    /^amazon linux\b/i,
    'EKS nodes get a new kubelet with a new AMI (managed node groups, Karpenter)',
  ],
  [/^container-optimized os\b/i, 'GKE upgrades its node pools itself'],
  [
    /^flatcar\b/i,
    'Flatcar updates with its update operator; the kubelet comes with the cluster tooling',
  ],
];

export type FamilyAnswer = { ok: true; family: PackageFamily } | { ok: false; why: string };

export function packageFamily(osImage: string | undefined): FamilyAnswer {
  const image = (osImage ?? '').trim();
  if (APT.some((p) => p.test(image))) return { ok: true, family: 'apt' };
  if (DNF.some((p) => p.test(image))) return { ok: true, family: 'dnf' };
  const own = OWN_WAY.find(([p]) => p.test(image));
  const name = image === '' ? 'an unknown OS (no osImage)' : JSON.stringify(image.slice(0, 80));
  return {
    ok: false,
    why:
      `runs ${name}: kubemaint's kubeadm upgrade covers Debian/Ubuntu (apt) and RHEL-family (dnf)` +
      ` nodes${own ? `; ${own[1]}` : ''}`,
  };
}
