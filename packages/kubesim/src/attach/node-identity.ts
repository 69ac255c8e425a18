/**
 * A simulated kubelet acts as its node, as a real one does with its client certificate: user
 * `system:node:<name>` in group `system:nodes`, so the apiserver's Node authorizer and NodeRestriction
 * admission judge every write it makes (its own Node and Lease, pods bound to it, tokens for those
 * pods only). It gets there by impersonation on the kubeconfig it was given: every request carries
 * `Impersonate-User` and `Impersonate-Group`, which the apiserver honours only if that kubeconfig's
 * identity holds the `impersonate` verb on users and groups (a cluster admin does). One kubelet
 * certificate per node would avoid that grant, but needs the cluster's CA key. The fleet's pods are
 * the one read not made as the node: one shared watch, as the kubeconfig itself (shared-pod-watch.ts).
 *
 * Both of client-node's request paths carry the headers, so the KubeConfig works anywhere:
 * `applySecurityAuthentication` (the fetch path of its Watch and API clients) and
 * `applyToHTTPSOptions` (node:https, kube-json.ts).
 */
import type https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { RequestContext } from '@kubernetes/client-node';

export interface Identity {
  user: string;
  groups: readonly string[];
}

export const NODES_GROUP = 'system:nodes';

export const nodeIdentity = (node: string): Identity => ({
  user: `system:node:${node}`,
  groups: [NODES_GROUP],
});

class ImpersonatingKubeConfig extends KubeConfig {
  private readonly identity: Identity;

  constructor(identity: Identity) {
    super();
    this.identity = identity;
  }

  private headers(): Record<string, string> {
    // One group is all a node needs; a header cannot repeat through these APIs' string maps.
    const [group] = this.identity.groups;
    return {
      'Impersonate-User': this.identity.user,
      ...(group ? { 'Impersonate-Group': group } : {}),
    };
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    for (const [name, value] of Object.entries(this.headers())) context.setHeaderParam(name, value);
  }

  override async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    await super.applyToHTTPSOptions(opts);
    opts.headers = { ...(opts.headers as Record<string, string> | undefined), ...this.headers() };
  }
}

/** The same cluster and credentials as `base`, every request made as `identity`. */
export function kubeConfigAs(base: KubeConfig, identity: Identity): KubeConfig {
  if (identity.groups.length > 1) throw new RangeError('impersonate at most one group');
  const config = new ImpersonatingKubeConfig(identity);
  config.loadFromOptions({
    clusters: base.clusters,
    users: base.users,
    contexts: base.contexts,
    currentContext: base.getCurrentContext(),
  });
  return config;
}
