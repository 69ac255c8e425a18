/**
 * Who the apiserver says the caller is (`kubectl auth whoami`): a SelfSubjectReview. The CLI's
 * identity for approvals is this, never a name typed on the command line (issue 15): `--as` is
 * kubectl's impersonation, which the apiserver authorises with RBAC's `impersonate` verb.
 */
import { AuthenticationV1Api, KubeConfig, type User } from '@kubernetes/client-node';
import type { KubeClient } from './client.js';
import { withRetry } from './retry.js';

export interface KubernetesUser {
  username: string;
  groups: string[];
}

export async function whoAmI(client: KubeClient): Promise<KubernetesUser> {
  const api = client.config.makeApiClient(AuthenticationV1Api);
  const review = await withRetry(
    'ask the apiserver who we are (SelfSubjectReview)',
    () =>
      api.createSelfSubjectReview({
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      }),
    client.retry,
  );
  const info = review.status?.userInfo;
  return { username: info?.username ?? '', groups: [...(info?.groups ?? [])] };
}

/** The same kubeconfig, acting as `user` (kubectl's `--as`): every request carries Impersonate-User. */
export function impersonating(config: KubeConfig, user: string): KubeConfig {
  const current = config.getCurrentUser();
  const next = new KubeConfig();
  next.loadFromOptions({
    clusters: config.clusters,
    contexts: config.contexts,
    currentContext: config.getCurrentContext(),
    users: config.users.map((u): User =>
      u.name === current?.name ? { ...u, impersonateUser: user } : u,
    ),
  });
  return next;
}
