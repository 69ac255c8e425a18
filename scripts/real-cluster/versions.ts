/**
 * Which Kubernetes the real control plane is built at, and where its binaries are cached. The version is
 * a parameter (`--kubernetes-version` or `KUBEMAINT_K8S_VERSION`); 1.34 is the default because the
 * machine's newest kubectl (1.33) is within the supported skew of a 1.34 server.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { RealClusterError } from './errors.js';

export const DEFAULT_KUBERNETES_VERSION = '1.34.4';

/**
 * The release one minor below the default, a patch the Go module proxy serves: the node tests' kubelet
 * to upgrade from, and test:real's older kube-apiserver (an HA control plane in the middle of its
 * upgrade).
 */
export const PREVIOUS_MINOR_RELEASE = '1.33.13';

/** The binaries `build` produces, in start order. */
export const BINARIES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
] as const;
export type Binary = (typeof BINARIES)[number];

/** Staging modules of k8s.io/kubernetes that must be pinned with `replace` (reference §2.2). */
export const STAGING_MODULES = [
  'api',
  'apiextensions-apiserver',
  'apimachinery',
  'apiserver',
  'cli-runtime',
  'client-go',
  'cloud-provider',
  'cluster-bootstrap',
  'code-generator',
  'component-base',
  'component-helpers',
  'controller-manager',
  'cri-api',
  'cri-client',
  'csi-translation-lib',
  'dynamic-resource-allocation',
  'endpointslice',
  'externaljwt',
  'kms',
  'kube-aggregator',
  'kube-controller-manager',
  'kube-proxy',
  'kube-scheduler',
  'kubectl',
  'kubelet',
  'metrics',
  'mount-utils',
  'pod-security-admission',
  'sample-apiserver',
  'sample-cli-plugin',
  'sample-controller',
] as const;

/** Added to the staging set in 1.36. */
const STAGING_SINCE_1_36 = ['streaming', 'cri-streaming'] as const;

export interface KubernetesVersion {
  /** e.g. `1.34.4` */
  full: string;
  major: number;
  minor: number;
  /** The staging modules' tag, e.g. `v0.34.4`. */
  stagingTag: string;
  stagingModules: readonly string[];
}

export function parseKubernetesVersion(raw: string): KubernetesVersion {
  const match = /^v?(1)\.(\d+)\.(\d+)$/.exec(raw.trim());
  if (!match) {
    throw new RealClusterError(
      `Kubernetes version ${JSON.stringify(raw)} is not a release like 1.34.4 (no v prefix needed, no pre-releases)`,
    );
  }
  const [, major, minor, patch] = match;
  const minorNumber = Number(minor);
  return {
    full: `${major}.${minor}.${patch}`,
    major: Number(major),
    minor: minorNumber,
    stagingTag: `v0.${minor}.${patch}`,
    stagingModules: [...STAGING_MODULES, ...(minorNumber >= 36 ? STAGING_SINCE_1_36 : [])],
  };
}

/** `$XDG_CACHE_HOME`, else `~/.cache`: builds kept there survive every clone of the project. */
export function cacheBase(): string {
  return process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
}

/** `$XDG_CACHE_HOME/kubemaint/kubernetes/v1.34.4`, else `~/.cache/…`: kept across clones of the project. */
export function cacheDirFor(version: KubernetesVersion): string {
  return join(cacheBase(), 'kubemaint', 'kubernetes', `v${version.full}`);
}
