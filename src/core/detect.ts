/**
 * Detection (DESIGN §1 step 1): which nodes need a reboot or a kubelet upgrade. A reboot is needed
 * when the node carries the reboot-required label (set by the agent or a person) or one of the
 * configured node conditions is True (Node Problem Detector). An upgrade is needed when the kubelet
 * is behind its target; the step is one minor at most. Pure: node facts in, needs out.
 */
import type { NodeView } from './node.js';
import { matchesSelector, type Selector } from '@kubemaint/label-selector';
import { isActive, type Action, type MaintenanceRequest } from './request.js';
import type { Apiservers } from './apiserver-bound.js';
import { classifyKubelet, nextKubeletStep } from './skew.js';
import { toKubeVersion, tryParseKubeVersion } from './version.js';

/** What detection reads of a node. */
export type DetectNode = Readonly<
  Pick<NodeView, 'name' | 'labels' | 'annotations' | 'conditions' | 'kubeletVersion' | 'request'>
>;

export interface DetectSettings {
  rebootLabel: string;
  conditionTypes: readonly string[];
  /** Only nodes matching it are managed; empty selector = every node. */
  nodeSelector: Selector;
  /** Skew detection on: the apiserver bound (or versions) to measure against, and the configured target. */
  kubelet?: { apiservers: Apiservers; target?: string };
  /** A request that ended (other than done) keeps its node quiet this long before it is proposed again. */
  reproposeAfterMs: number;
  sinceAnnotation: string;
  packagesAnnotation: string;
}

export interface Need {
  node: string;
  action: Action;
  targetVersion?: string;
  reason: string;
  /** Requests with the same key proposed together form one campaign. */
  campaignKey: string;
}

export interface Skipped {
  node: string;
  why: string;
}

/** A kubelet the skew policy forbids and no kubelet upgrade fixes (newer than the apiserver bound). */
export interface Violation {
  node: string;
  why: string;
}

export function detectNeeds(
  nodes: readonly DetectNode[],
  settings: DetectSettings,
  now: Date,
): { needs: Need[]; skipped: Skipped[]; violations: Violation[] } {
  const needs: Need[] = [];
  const skipped: Skipped[] = [];
  const violations: Violation[] = [];
  const known = nodes.map((n) => n.kubeletVersion).filter((v) => tryParseKubeVersion(v));
  for (const node of nodes) {
    if (!matchesSelector(settings.nodeSelector, node.labels)) continue;
    const violation = skewViolation(node, settings);
    if (violation) violations.push(violation);
    const need = rebootNeed(node, settings) ?? upgradeNeed(node, settings, known);
    if (!need) continue;
    const quiet = quietReason(node.request, need, settings.reproposeAfterMs, now);
    if (quiet) skipped.push({ node: node.name, why: quiet });
    else needs.push(need);
  }
  return { needs, skipped, violations };
}

/** Said, never proposed: only a control-plane upgrade (or a lower emulated version undone) fixes it. */
function skewViolation(node: DetectNode, settings: DetectSettings): Violation | undefined {
  const kubelet = settings.kubelet;
  if (!kubelet || !tryParseKubeVersion(node.kubeletVersion)) return undefined;
  const verdict = classifyKubelet(node.kubeletVersion, kubelet.apiservers);
  return verdict.status === 'newer-than-apiserver'
    ? { node: node.name, why: verdict.reason }
    : undefined;
}

function rebootNeed(node: DetectNode, settings: DetectSettings): Need | undefined {
  const labelled = node.labels[settings.rebootLabel] === 'true';
  const condition = settings.conditionTypes.find((type) => node.conditions[type] === 'True');
  if (!labelled && !condition) return undefined;
  const since = node.annotations[settings.sinceAnnotation];
  const packages = node.annotations[settings.packagesAnnotation];
  const source = labelled ? `label ${settings.rebootLabel}=true` : `condition ${condition}=True`;
  const details = [since ? `since ${since}` : '', packages ? `packages: ${packages}` : '']
    .filter(Boolean)
    .join('; ');
  return {
    node: node.name,
    action: 'reboot',
    reason: `reboot required (${source}${details ? `; ${details}` : ''})`,
    campaignKey: 'reboot',
  };
}

function upgradeNeed(
  node: DetectNode,
  settings: DetectSettings,
  known: readonly string[],
): Need | undefined {
  const kubelet = settings.kubelet;
  if (!kubelet) return undefined;
  if (!tryParseKubeVersion(node.kubeletVersion)) return undefined;
  const step = nextKubeletStep({
    kubelet: node.kubeletVersion,
    apiservers: kubelet.apiservers,
    ...(kubelet.target ? { target: kubelet.target } : {}),
    known,
  });
  if (!step) return undefined;
  const verdict = classifyKubelet(
    toKubeVersion(node.kubeletVersion),
    kubelet.apiservers,
    kubelet.target ? { target: kubelet.target } : {},
  );
  return {
    node: node.name,
    action: 'upgrade',
    targetVersion: step.version,
    reason: `${verdict.reason}; next step ${step.version} (${step.note})`,
    campaignKey: `upgrade:${step.version}`,
  };
}

/** Why this node must not be proposed now, or undefined when it may. */
function quietReason(
  request: MaintenanceRequest | undefined,
  need: Need,
  reproposeAfterMs: number,
  now: Date,
): string | undefined {
  if (!request) return undefined;
  if (isActive(request.state)) return `request ${request.id} is ${request.state}`;
  if (request.state === 'done') return undefined;
  const sameChange = request.action === need.action && request.targetVersion === need.targetVersion;
  const quietUntil = Date.parse(request.updatedAt) + reproposeAfterMs;
  if (sameChange && now.getTime() < quietUntil) {
    return `request ${request.id} ended ${request.state}; not proposed again before ${new Date(quietUntil).toISOString()}`;
  }
  return undefined;
}
