/**
 * Which kube-apiserver bounds the kubelets (ADR 0050). An HA control plane mid-upgrade runs
 * apiservers of two versions, and since compatibility versions (KEP-4330) an apiserver may emulate
 * the minor below its binary: a kubelet must not be newer than the OLDEST *emulated* version, so
 * that is the bound, and the report names the apiserver and the source that found it. Pure: what the
 * adapter read of each apiserver in, the bound with its reasons out.
 */
import { KubemaintError } from '../errors.js';
import {
  compareKubeVersions,
  formatKubeVersion,
  tryParseKubeVersion,
  type KubeVersion,
} from './version.js';

/** Where an apiserver was found (and its version read). */
export type ApiserverSource =
  /** `/version` asked at the address an identity Lease advertises (mixed-version proxy). */
  | 'peer-address'
  /** `/version` asked at an address of the `default/kubernetes` EndpointSlice. */
  | 'endpointslice'
  /** A kubeadm static pod `kube-system/kube-apiserver-*`: its image tag and `--emulated-version`. */
  | 'static-pod'
  /** The one `/version` the connection's server answered (whichever apiserver that is). */
  | 'version';

export interface ApiserverFact {
  /** Who it is: an address, a pod, the server URL. */
  name: string;
  source: ApiserverSource;
  /** The binary's version (`gitVersion`, an image tag). */
  binary: string;
  /** `major.minor` it emulates (`/version`'s emulationMajor/Minor, `--emulated-version`); none: its binary's. */
  emulated?: string;
  /** `major.minor` of `/version`'s minCompatibilityMajor/Minor, when given. */
  minCompatibility?: string;
}

export interface ApiserverFacts {
  facts: ApiserverFact[];
  /** How many apiservers their identity Leases count; undefined when they could not be read. */
  identities?: number;
  /** What each source gave, one line each (for the scan's report and the closing note). */
  said: string[];
}

/** What the skew policy measures a kubelet against. */
export interface ApiserverBound {
  /** The bounding version; patch 0 when only its minor bounds (an emulated version). */
  version: KubeVersion;
  /** An emulated version bounds the minor only: any patch of it is allowed. */
  minorOnly: boolean;
  /** `v1.34.4`, or `v1.33 (emulated by v1.34.4)`. */
  label: string;
  /** Which apiserver and source bounded it, e.g. `static-pod kube-system/kube-apiserver-cp2`. */
  source?: string;
}

/** What the skew functions accept: every apiserver's version (the oldest bounds), or a bound. */
export type Apiservers = readonly (string | KubeVersion)[] | ApiserverBound;

export interface BoundReading {
  bound: ApiserverBound;
  /** `apiserver bound v1.33 (emulated by v1.34.4), from …; 2 apiservers …`: one line for reports. */
  summary: string;
  /** What may make the bound wrong (an apiserver counted but not read). */
  warnings: string[];
}

/** `1.33` or `v1.33` → { major, minor }; undefined when not a major.minor. */
export function parseMinor(text: string): { major: number; minor: number } | undefined {
  const m = /^v?(\d{1,4})\.(\d{1,4})$/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

function boundOfFact(fact: ApiserverFact): ApiserverBound | undefined {
  const binary = tryParseKubeVersion(fact.binary);
  if (!binary) return undefined;
  const emulated = fact.emulated === undefined ? undefined : parseMinor(fact.emulated);
  const below =
    emulated &&
    (emulated.major < binary.major ||
      (emulated.major === binary.major && emulated.minor < binary.minor));
  const source = `${fact.source} ${fact.name}`;
  if (!emulated || !below)
    return { version: binary, minorOnly: false, label: formatKubeVersion(binary), source };
  const raw = `v${emulated.major}.${emulated.minor}`;
  return {
    version: { major: emulated.major, minor: emulated.minor, patch: 0, suffix: '', raw },
    minorOnly: true,
    label: `${raw} (emulated by ${formatKubeVersion(binary)})`,
    source,
  };
}

/**
 * Oldest first by minor; at one minor an exact binary bounds before an emulated one (its patch is
 * known), then the lower patch; then the more specific source (the `/version` answer is any one of them).
 */
function older(a: ApiserverBound, b: ApiserverBound): number {
  return (
    a.version.major - b.version.major ||
    a.version.minor - b.version.minor ||
    Number(a.minorOnly) - Number(b.minorOnly) ||
    a.version.patch - b.version.patch ||
    Number(a.source?.startsWith('version ')) - Number(b.source?.startsWith('version '))
  );
}

/** The oldest emulated version among `read.facts`, the source that found it, and what is doubtful. */
export function apiserverBound(read: ApiserverFacts): BoundReading {
  const bounds = read.facts.map(boundOfFact).filter((b) => b !== undefined);
  const bound = [...bounds].sort(older)[0];
  if (!bound) {
    throw new KubemaintError('not_found', 'no kube-apiserver version could be read', {
      hint: `what each source gave: ${read.said.join('; ') || 'nothing'}`,
    });
  }
  const warnings: string[] = [];
  const unreadable = read.facts.filter((f) => !tryParseKubeVersion(f.binary));
  for (const fact of unreadable)
    warnings.push(`${fact.source} ${fact.name}: "${fact.binary}" is not a Kubernetes version`);
  // Addresses are distinct apiservers; the `/version` answer is one of them, counted once.
  const addressed = new Set(read.facts.filter((f) => f.source !== 'version').map((f) => f.name));
  const seen = Math.max(addressed.size, read.facts.length > 0 ? 1 : 0);
  if (read.identities !== undefined && read.identities > seen) {
    warnings.push(
      `identity leases count ${read.identities} kube-apiservers but the versions of ${seen} were read: one not read may be older`,
    );
  }
  const count =
    read.identities === undefined
      ? `${seen} kube-apiserver${seen === 1 ? '' : 's'} read`
      : `${read.identities} kube-apiserver${read.identities === 1 ? '' : 's'} by identity leases`;
  return {
    bound,
    summary: `apiserver bound ${bound.label}, from ${bound.source ?? 'given versions'}; ${count}`,
    warnings,
  };
}

/** True when `v` is newer than the bound (an emulated bound allows every patch of its minor). */
export function exceedsBound(v: KubeVersion, bound: ApiserverBound): boolean {
  const byMinor = v.major - bound.version.major || v.minor - bound.version.minor;
  return bound.minorOnly ? byMinor > 0 : compareKubeVersions(v, bound.version) > 0;
}

/** True when nothing newer than `v` fits under the bound (a kubelet here cannot be upgraded). */
export function reachesBound(v: KubeVersion, bound: ApiserverBound): boolean {
  return bound.minorOnly ? exceedsBound(v, bound) : compareKubeVersions(v, bound.version) >= 0;
}
