/**
 * Whether a person's chosen kubelet version can be one upgrade step, and if not, which versions can:
 * newer than the kubelet, at most one minor above it, never newer than the oldest apiserver (the
 * skew policy, skew.ts). A version kubemaint would silently change is refused instead, so what is
 * approved is what was asked for. Pure.
 */
import { exceedsBound, reachesBound, type Apiservers } from './apiserver-bound.js';
import { toBound } from './skew.js';
import {
  compareKubeVersions,
  formatKubeVersion,
  formatMinor,
  toKubeVersion,
  type KubeVersion,
} from './version.js';

export interface KubeletTargetRefusal {
  /** Why this version cannot be the step, then the versions that can. */
  problem: string;
  /** The newest version that can be the step, for a hint; none when no upgrade is possible. */
  example?: string;
}

/** Undefined when `version` can be the kubelet's next step; else why not and what can. */
export function kubeletTargetRefusal(input: {
  kubelet: string | KubeVersion;
  apiservers: Apiservers;
  version: string | KubeVersion;
}): KubeletTargetRefusal | undefined {
  const kubelet = toKubeVersion(input.kubelet);
  const bound = toBound(input.apiservers);
  const apiserver = bound.version;
  const wanted = toKubeVersion(input.version);
  const k = formatKubeVersion(kubelet);
  const a = bound.label;
  const w = formatKubeVersion(wanted);
  if (reachesBound(kubelet, bound)) {
    return {
      problem:
        `the kubelet is ${k} and the apiserver ${a}: no kubelet version is allowed ` +
        '(a kubelet may never be newer than the apiserver; upgrade the control plane first)',
    };
  }
  const nextMinor = { ...kubelet, minor: kubelet.minor + 1, patch: 0 };
  const stepsToApiserver = apiserver.major === kubelet.major && apiserver.minor <= nextMinor.minor;
  // An emulated bound allows every patch of its minor: the ceiling is the minor, not a release.
  const ceiling = !stepsToApiserver
    ? `up to ${formatMinor(nextMinor)}.x (one minor at a time; the apiserver is ${a})`
    : bound.minorOnly
      ? `up to ${formatMinor(apiserver)}.x (the apiserver is ${a})`
      : `up to ${a} (the apiserver)`;
  const allowed = `allowed: newer than ${k}, ${ceiling}`;
  // The emulated minor's `.0` is an example only below that minor: no patch of it is known to exist.
  const example =
    !stepsToApiserver || !bound.minorOnly || kubelet.minor < apiserver.minor
      ? formatKubeVersion(stepsToApiserver ? apiserver : nextMinor)
      : undefined;
  const refuse = (why: string): KubeletTargetRefusal => ({
    problem: `${w} ${why}; ${allowed}`,
    ...(example ? { example } : {}),
  });
  if (compareKubeVersions(wanted, kubelet) <= 0) return refuse(`is not newer than the kubelet`);
  if (exceedsBound(wanted, bound)) {
    return refuse(`is newer than the apiserver (a kubelet may never be)`);
  }
  if (wanted.major !== kubelet.major || wanted.minor > nextMinor.minor) {
    return refuse(`is more than one minor above the kubelet (kubelets move one minor at a time)`);
  }
  return undefined;
}
