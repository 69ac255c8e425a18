/**
 * Kubernetes version strings as clusters report them: `v1.31.4`, `v1.30.2-eks-a1b2c3`, `v1.29.8+k3s1`,
 * `v1.28.15-gke.1020000`, `1.27.3`, and the `/version` document whose `minor` may read `"32+"`. Parsing
 * keeps the vendor suffix for display but compares on major.minor.patch only: the skew policy is about
 * upstream releases, and `v1.30.2-eks-x` is the same kubelet release as `v1.30.2`.
 * Pure; errors are KubemaintError `usage` with a hint.
 */
import { KubemaintError } from '../errors.js';

export interface KubeVersion {
  major: number;
  minor: number;
  patch: number;
  /** Vendor build suffix including its separator (`-eks-a1b2c3`, `+k3s1`), or `''`. */
  suffix: string;
  /** The text as it was given (trimmed). */
  raw: string;
}

/**
 * What an upgrade command template may receive: digits only, so text from Slack never reaches a shell
 * unvalidated (DESIGN §5.3). Vendor suffixes are deliberately not allowed here.
 */
export const STRICT_VERSION_PATTERN = /^v?\d+\.\d+\.\d+$/;

/** True when `text` matches {@link STRICT_VERSION_PATTERN} exactly (no trimming, no suffix). */
export function isStrictVersion(text: string): boolean {
  return STRICT_VERSION_PATTERN.test(text);
}

// The build suffix is semver-like: `-pre.1`, `+build.5`, `-eks-a1b2c3`, combinations of them.
const VERSION = /^v?(\d{1,4})\.(\d{1,4})\.(\d{1,6})((?:[-+][0-9A-Za-z][0-9A-Za-z.-]*)*)$/;

/** Parses one version string, or undefined when it is not a Kubernetes version. */
export function tryParseKubeVersion(text: string): KubeVersion | undefined {
  const raw = text.trim();
  const m = VERSION.exec(raw);
  if (!m) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    suffix: m[4] ?? '',
    raw,
  };
}

/** Parses one version string; throws a KubemaintError naming the bad text when it is not one. */
export function parseKubeVersion(text: string): KubeVersion {
  const parsed = tryParseKubeVersion(text);
  if (parsed) return parsed;
  throw new KubemaintError('usage', `"${text}" is not a Kubernetes version`, {
    hint: 'write major.minor.patch, e.g. v1.31.4 (vendor suffixes like -eks-abc or +k3s1 are fine)',
  });
}

/** The fields of `GET /version` that matter here (apimachinery `version.Info`). */
export interface VersionInfo {
  major?: string;
  minor?: string;
  gitVersion?: string;
}

/**
 * Reads a `/version` document. `gitVersion` carries the patch, so it wins; `major`/`minor` (whose
 * minor may be `"32+"` on EKS/GKE) are the fallback, with patch 0.
 */
export function parseVersionInfo(info: VersionInfo): KubeVersion {
  const fromGit = info.gitVersion === undefined ? undefined : tryParseKubeVersion(info.gitVersion);
  if (fromGit) return fromGit;
  const major = /^(\d+)\+?$/.exec(info.major?.trim() ?? '')?.[1];
  const minor = /^(\d+)\+?$/.exec(info.minor?.trim() ?? '')?.[1];
  if (major !== undefined && minor !== undefined) {
    return {
      major: Number(major),
      minor: Number(minor),
      patch: 0,
      suffix: '',
      raw: `v${major}.${minor}.0`,
    };
  }
  throw new KubemaintError(
    'usage',
    `/version document has no usable version (gitVersion ${JSON.stringify(info.gitVersion)}, ` +
      `major ${JSON.stringify(info.major)}, minor ${JSON.stringify(info.minor)})`,
    { hint: 'expected gitVersion like "v1.32.1-eks-1234" or major "1" with minor "32" / "32+"' },
  );
}

/** Negative, zero or positive like a sort comparator; suffixes are ignored. */
export function compareKubeVersions(a: KubeVersion, b: KubeVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** `v1.31.4`: the upstream release, without vendor suffix; always matches STRICT_VERSION_PATTERN. */
export function formatKubeVersion(v: KubeVersion): string {
  return `v${v.major}.${v.minor}.${v.patch}`;
}

/** `v1.31`: for messages about minor releases. */
export function formatMinor(v: KubeVersion): string {
  return `v${v.major}.${v.minor}`;
}

/** Accepts either form, so callers can pass what they have. */
export function toKubeVersion(v: string | KubeVersion): KubeVersion {
  return typeof v === 'string' ? parseKubeVersion(v) : v;
}
