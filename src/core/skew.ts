/**
 * Decides whether a kubelet fits the Kubernetes version skew policy and where it should go next
 * (reference: kubernetes-semantics.md §7, kubernetes.io/releases/version-skew-policy):
 * - a kubelet must not be newer than kube-apiserver, and may be at most 3 minors older (2 when the
 *   kubelet is older than 1.25);
 * - with several apiservers (an HA control plane mid-upgrade) the range is computed against the OLDEST;
 * - a kubelet at the oldest allowed minor blocks the next control-plane upgrade;
 * - kubelets move one minor at a time, never past the apiserver, and always drain first (DESIGN §5.6).
 * Pure: versions in, a verdict with a human reason out.
 */
import { KubemaintError } from '../errors.js';
import { exceedsBound, type ApiserverBound, type Apiservers } from './apiserver-bound.js';
import {
  compareKubeVersions,
  formatKubeVersion,
  formatMinor,
  toKubeVersion,
  type KubeVersion,
} from './version.js';

export type SkewStatus = 'ok' | 'behind' | 'too-old' | 'newer-than-apiserver';

export interface SkewVerdict {
  /**
   * `ok`: at or above the target, within policy. `behind`: below the target but within policy (an
   * upgrade is wanted). `too-old`: beyond the policy. `newer-than-apiserver`: a policy violation that
   * no kubelet upgrade can fix.
   */
  status: SkewStatus;
  kubelet: KubeVersion;
  /** The oldest apiserver: the one the policy is measured against. */
  apiserver: KubeVersion;
  /** What the kubelet should reach: the configured target capped at the apiserver, or the apiserver. */
  target: KubeVersion;
  /** apiserver minor minus kubelet minor; negative when the kubelet is newer. */
  minorsBehind: number;
  /** 3, or 2 for kubelets older than 1.25. */
  maxMinorsBehind: number;
  /** The kubelet sits at the oldest allowed minor: the apiserver cannot move up one more. */
  blocksNextControlPlaneUpgrade: boolean;
  reason: string;
}

/** The oldest of the apiserver versions (HA control planes mid-upgrade report several). */
export function oldestApiserver(apiservers: readonly (string | KubeVersion)[]): KubeVersion {
  const parsed = apiservers.map(toKubeVersion);
  const oldest = parsed.reduce<KubeVersion | undefined>(
    (min, v) => (min === undefined || compareKubeVersions(v, min) < 0 ? v : min),
    undefined,
  );
  if (!oldest) {
    throw new KubemaintError('usage', 'no apiserver version given', {
      hint: 'pass the gitVersion of every apiserver (GET /version), at least one',
    });
  }
  return oldest;
}

/** A bound from what the caller has: a bound as it is, or the oldest of several versions. */
export function toBound(apiservers: Apiservers): ApiserverBound {
  if (!isList(apiservers)) return apiservers;
  const oldest = oldestApiserver(apiservers);
  return { version: oldest, minorOnly: false, label: formatKubeVersion(oldest) };
}

function isList(a: Apiservers): a is readonly (string | KubeVersion)[] {
  return Array.isArray(a);
}

/** The policy's allowance: kubelets older than 1.25 may lag only two minors (pre-KEP-3935 rule). */
export function maxMinorsBehindFor(kubelet: KubeVersion): number {
  return kubelet.major === 1 && kubelet.minor < 25 ? 2 : 3;
}

/** Distance in minors; different majors count as far beyond any policy. */
function minorDistance(apiserver: KubeVersion, kubelet: KubeVersion): number {
  if (apiserver.major !== kubelet.major) return (apiserver.major - kubelet.major) * 1000;
  return apiserver.minor - kubelet.minor;
}

/**
 * The target a kubelet should reach: the configured one (never past the bound), or the bound when
 * none is configured (an emulated bound: its minor's `.0`, or a known later patch of it).
 */
export function effectiveTarget(
  apiservers: Apiservers,
  target?: string | KubeVersion,
): KubeVersion {
  const bound = toBound(apiservers);
  if (target === undefined) return bound.version;
  const wanted = toKubeVersion(target);
  return exceedsBound(wanted, bound) ? bound.version : wanted;
}

/**
 * Classifies one kubelet against the oldest of `apiservers`.
 * @param options.target a configured kubelet target; @default the oldest apiserver
 */
export function classifyKubelet(
  kubeletVersion: string | KubeVersion,
  apiservers: Apiservers,
  options: { target?: string | KubeVersion } = {},
): SkewVerdict {
  const kubelet = toKubeVersion(kubeletVersion);
  const bound = toBound(apiservers);
  const apiserver = bound.version;
  const target = effectiveTarget(bound, options.target);
  const minorsBehind = minorDistance(apiserver, kubelet);
  const maxMinorsBehind = maxMinorsBehindFor(kubelet);
  const k = formatKubeVersion(kubelet);
  const a = bound.label;
  const verdict = (status: SkewStatus, reason: string): SkewVerdict => ({
    status,
    kubelet,
    apiserver,
    target,
    minorsBehind,
    maxMinorsBehind,
    blocksNextControlPlaneUpgrade: minorsBehind >= maxMinorsBehind,
    reason:
      minorsBehind >= maxMinorsBehind && status !== 'too-old'
        ? `${reason}; it blocks the next control-plane upgrade (apiserver ${formatMinor(apiserver)} cannot move to v${apiserver.major}.${apiserver.minor + 1} until this kubelet is upgraded)`
        : reason,
  });

  if (minorsBehind < 0) {
    return verdict(
      'newer-than-apiserver',
      `kubelet ${k} is newer than apiserver ${a}: the skew policy forbids a kubelet newer than the oldest apiserver; upgrade the control plane first`,
    );
  }
  if (minorsBehind > maxMinorsBehind) {
    const rule = maxMinorsBehind === 2 ? ' (2 for kubelets older than 1.25)' : '';
    return verdict(
      'too-old',
      `kubelet ${k} is ${minorsBehind} minor versions behind apiserver ${a}: beyond the skew policy (at most ${maxMinorsBehind}${rule}); upgrade it one minor at a time`,
    );
  }
  if (compareKubeVersions(kubelet, target) < 0) {
    const lag =
      minorsBehind === 0
        ? `patch behind (target ${formatKubeVersion(target)})`
        : `${minorsBehind} minor version${minorsBehind === 1 ? '' : 's'} behind apiserver ${a}, within policy (target ${formatKubeVersion(target)})`;
    return verdict('behind', `kubelet ${k} is ${lag}`);
  }
  return verdict(
    'ok',
    minorsBehind === 0
      ? `kubelet ${k} matches apiserver ${formatMinor(apiserver)}`
      : `kubelet ${k} is at its target ${formatKubeVersion(target)}, ${minorsBehind} minor version${minorsBehind === 1 ? '' : 's'} behind apiserver ${a} (within policy)`,
  );
}

/**
 * An emulated bound says its minor, not a patch: its `.0` as the target becomes the highest patch of
 * that minor known in the fleet, which is as allowed and more current.
 */
function withKnownPatch(
  target: KubeVersion,
  bound: ApiserverBound,
  known: readonly KubeVersion[],
): KubeVersion {
  if (!bound.minorOnly || target !== bound.version) return target;
  const patch = known
    .filter((v) => v.major === target.major && v.minor === target.minor)
    .reduce((max, v) => Math.max(max, v.patch), target.patch);
  return patch === target.patch
    ? target
    : { ...target, patch, raw: `v${target.major}.${target.minor}.${patch}` };
}

/**
 * HA apiservers must stay within one minor of each other; a wider spread is itself a policy violation
 * worth reporting. Undefined when fine.
 */
export function apiserverSpreadProblem(
  apiservers: readonly (string | KubeVersion)[],
): string | undefined {
  const parsed = apiservers.map(toKubeVersion);
  const oldest = oldestApiserver(parsed);
  const newest = parsed.reduce((max, v) => (compareKubeVersions(v, max) > 0 ? v : max), oldest);
  const spread = minorDistance(newest, oldest);
  if (spread <= 1) return undefined;
  return `apiservers span ${formatKubeVersion(oldest)} to ${formatKubeVersion(newest)} (${spread} minors): HA apiservers must be within one minor of each other`;
}

export interface KubeletStep {
  from: KubeVersion;
  /** The version to install: one minor up at most, never past the oldest apiserver. */
  to: KubeVersion;
  /** `to` as `v1.31.4`: matches STRICT_VERSION_PATTERN, safe for the upgrade command template. */
  version: string;
  kind: 'minor' | 'patch';
  /** Always true: kubemaint drains before every kubelet upgrade. */
  drainRequired: true;
  /** Why the drain matters for this step, for the approval prompt. */
  note: string;
  /** True when `to` is the final target; false when more one-minor steps follow. */
  final: boolean;
}

export const MINOR_STEP_NOTE =
  'minor kubelet upgrade: drain required, containers will be recreated (container spec hash changes)';
export const PATCH_STEP_NOTE =
  'patch kubelet upgrade: containers may survive the kubelet restart, but kubemaint drains anyway';

/**
 * The next kubelet version to install, or undefined when the kubelet is at (or past) its target or
 * newer than the apiserver (no upgrade can fix that).
 *
 * When the target is more than one minor ahead, the step is `<current minor + 1>` with the highest
 * patch found among `known` versions of that minor (e.g. other kubelets in the fleet, or a configured
 * list), else `.0`: a `.0` always exists upstream, and a later patch is only chosen when it is known
 * to exist.
 * @param input.target configured target; @default the oldest apiserver
 */
export function nextKubeletStep(input: {
  kubelet: string | KubeVersion;
  apiservers: Apiservers;
  target?: string | KubeVersion;
  known?: readonly (string | KubeVersion)[];
}): KubeletStep | undefined {
  const from = toKubeVersion(input.kubelet);
  const bound = toBound(input.apiservers);
  const known = (input.known ?? []).map(toKubeVersion);
  const target = withKnownPatch(effectiveTarget(bound, input.target), bound, known);
  if (compareKubeVersions(from, target) >= 0) return undefined;
  if (target.major !== from.major) {
    throw new KubemaintError(
      'usage',
      `cannot plan a kubelet upgrade from ${formatKubeVersion(from)} to ${formatKubeVersion(target)}: the majors differ`,
      { hint: 'kubelets move one minor at a time within one major version' },
    );
  }
  let to: KubeVersion;
  if (target.minor - from.minor <= 1) {
    to = target;
  } else {
    const minor = from.minor + 1;
    const patch = known
      .filter((v) => v.major === from.major && v.minor === minor)
      .reduce((max, v) => Math.max(max, v.patch), 0);
    to = { major: from.major, minor, patch, suffix: '', raw: `v${from.major}.${minor}.${patch}` };
  }
  const kind = to.minor === from.minor ? 'patch' : 'minor';
  return {
    from,
    to,
    version: formatKubeVersion(to),
    kind,
    drainRequired: true,
    note: kind === 'minor' ? MINOR_STEP_NOTE : PATCH_STEP_NOTE,
    final: compareKubeVersions(to, target) === 0,
  };
}
