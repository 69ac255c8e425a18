/**
 * The "who am I" and "may I" APIs kubectl uses: `authentication.k8s.io/v1 SelfSubjectReview`
 * (`kubectl auth whoami`), `authorization.k8s.io/v1 SelfSubjectAccessReview` (`kubectl auth can-i`)
 * and `SubjectAccessReview` (may *they*; needs `create subjectaccessreviews`), and `TokenReview`
 * (who is this bearer token; needs `create tokenreviews`), which a kubelet's webhook authentication
 * asks (kubelet-configz.ts). Nothing is stored:
 * the answer is the request with its status filled in, 201 as upstream.
 */
import type { Authorizer, AuthzAttributes } from '../authz/attributes.js';
import { badRequest } from '../status-errors.js';
import { formatTime } from '../store-meta.js';
import type { UserInfo } from './identity.js';
import { readObject, sendObject, type RequestContext } from './http.js';

export const REVIEW_PATHS: Readonly<Record<string, { group: string; resource: string }>> = {
  '/apis/authentication.k8s.io/v1/selfsubjectreviews': {
    group: 'authentication.k8s.io',
    resource: 'selfsubjectreviews',
  },
  '/apis/authentication.k8s.io/v1/tokenreviews': {
    group: 'authentication.k8s.io',
    resource: 'tokenreviews',
  },
  '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews': {
    group: 'authorization.k8s.io',
    resource: 'selfsubjectaccessreviews',
  },
  '/apis/authorization.k8s.io/v1/subjectaccessreviews': {
    group: 'authorization.k8s.io',
    resource: 'subjectaccessreviews',
  },
};

interface ReviewSpec {
  resourceAttributes?: {
    namespace?: string;
    verb?: string;
    group?: string;
    version?: string;
    resource?: string;
    subresource?: string;
    name?: string;
  };
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

const userInfoJson = (u: UserInfo) => ({
  username: u.username,
  ...(u.uid ? { uid: u.uid } : {}),
  groups: u.groups,
  ...(u.extra && Object.keys(u.extra).length > 0 ? { extra: u.extra } : {}),
});

function attributesOf(user: UserInfo, spec: ReviewSpec): AuthzAttributes {
  const r = spec.resourceAttributes;
  const n = spec.nonResourceAttributes;
  if (r) {
    return {
      user,
      verb: r.verb ?? '',
      resourceRequest: true,
      apiGroup: r.group ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      namespace: r.namespace ?? '',
      name: r.name ?? '',
      path: '',
    };
  }
  if (n) {
    const base = { apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
    return { user, verb: n.verb ?? '', resourceRequest: false, path: n.path ?? '', ...base };
  }
  throw badRequest('exactly one of nonResourceAttributes or resourceAttributes must be specified');
}

export async function handleReview(
  ctx: RequestContext,
  resource: string,
  authorizer: Authorizer,
  authenticateToken: (token: string) => UserInfo | undefined,
): Promise<void> {
  const body = await readObject(ctx);
  if (resource === 'tokenreviews') {
    const spec = (body['spec'] ?? {}) as { token?: string };
    if (!spec.token) throw badRequest('spec.token: Required value');
    const user = authenticateToken(spec.token);
    sendObject(ctx.res, 201, {
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: user
        ? { authenticated: true, user: userInfoJson(user) }
        : { user: {}, error: 'invalid bearer token' },
    });
    return;
  }
  if (resource === 'selfsubjectreviews') {
    sendObject(ctx.res, 201, {
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      // kube-apiserver 1.34 stamps the review's creation time (the access reviews carry null).
      metadata: { creationTimestamp: formatTime(ctx.now()) },
      status: { userInfo: userInfoJson(ctx.user) },
    });
    return;
  }
  const spec = (body['spec'] ?? {}) as ReviewSpec;
  const subject: UserInfo =
    resource === 'subjectaccessreviews'
      ? {
          username: spec.user ?? '',
          groups: spec.groups ?? [],
          ...(spec.uid ? { uid: spec.uid } : {}),
          ...(spec.extra ? { extra: spec.extra } : {}),
        }
      : ctx.user;
  const decision = authorizer.authorize(attributesOf(subject, spec));
  sendObject(ctx.res, 201, {
    kind: resource === 'subjectaccessreviews' ? 'SubjectAccessReview' : 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec:
      resource === 'subjectaccessreviews' ? spec : { ...spec, user: undefined, groups: undefined },
    status: { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) },
  });
}
