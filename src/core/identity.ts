/**
 * Identities as kubemaint's core spells them and as its objects record them (ADR 0012). The core
 * keeps the words people already use (`k8s:alice`, a Slack ID `U0ALICE`, `policy:autoApprove`); a
 * MaintenanceApproval records what admission can check against the author: a Kubernetes user's own
 * username, or, written only by the control plane, `slack:<team>/<user>` and `policy:<rule>`.
 */

const K8S = 'k8s:';
const SLACK_USER = /^[UW][A-Z0-9]{2,}$/;
const RECORDED_SLACK = /^slack:([TE][A-Z0-9]+)\/([UW][A-Z0-9]+)$/;

/** The core identity of a Kubernetes user (`kubectl auth whoami`'s username). */
export const kubernetesIdentity = (username: string): string => `${K8S}${username}`;

export const isKubernetesIdentity = (id: string): boolean => id.startsWith(K8S);

/** How a decision by `id` is recorded in its object; `team` is the Slack workspace of a Slack user. */
export function recordedIdentity(id: string, team: string): string {
  if (id.startsWith(K8S)) return id.slice(K8S.length);
  if (SLACK_USER.test(id)) return `slack:${team}/${id}`;
  return id;
}

/** The core identity of a recorded approver (the inverse of `recordedIdentity`). */
export function coreIdentity(recorded: string): string {
  const slack = RECORDED_SLACK.exec(recorded);
  if (slack) return slack[2]!;
  if (recorded.startsWith('policy:') || recorded.startsWith('kubemaint:')) return recorded;
  return `${K8S}${recorded}`;
}
