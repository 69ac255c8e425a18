/**
 * What a failed Job pod means for its Job, pure: the first matching `podFailurePolicy` rule decides
 * (Ignore: not counted, FailJob: the Job fails at once, Count: counted toward backoffLimit), as in
 * `pkg/controller/job/pod_failure_policy.go`. No policy or no match: Count.
 */
import type { KObject } from '../types.js';
import { podStatus } from './shapes.js';

export type FailureAction = 'Ignore' | 'FailJob' | 'Count' | 'FailIndex';

interface Rule {
  action: FailureAction;
  onExitCodes?: { containerName?: string; operator: 'In' | 'NotIn'; values: number[] };
  onPodConditions?: { type: string; status?: string }[];
}

export function failureAction(job: KObject, pod: KObject): FailureAction {
  const policy = job.spec?.['podFailurePolicy'] as { rules?: Rule[] } | undefined;
  const status = podStatus(pod);
  for (const rule of policy?.rules ?? []) {
    if (rule.onExitCodes) {
      const { containerName, operator, values } = rule.onExitCodes;
      const codes = (status.containerStatuses ?? [])
        .filter((c) => !containerName || c.name === containerName)
        .flatMap((c) => (c.state.terminated ? [c.state.terminated.exitCode] : []))
        .filter((code) => code !== 0);
      const hit = codes.some((code) =>
        operator === 'In' ? values.includes(code) : !values.includes(code),
      );
      if (hit) return rule.action;
    }
    if (rule.onPodConditions) {
      const hit = rule.onPodConditions.some((want) =>
        (status.conditions ?? []).some(
          (c) => c.type === want.type && c.status === (want.status ?? 'True'),
        ),
      );
      if (hit) return rule.action;
    }
  }
  return 'Count';
}
