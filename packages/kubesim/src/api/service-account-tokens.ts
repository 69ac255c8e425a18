/**
 * The TokenRequest API (`POST serviceaccounts/<name>/token`) and the tokens it mints, as
 * kube-apiserver has them: a JWT for `system:serviceaccount:<ns>:<name>`, optionally bound to a Pod
 * (which must run as that service account; its node is named in the claims), valid until it expires
 * or its service account or pod is gone (pkg/serviceaccount/claims.go). A node (`system:node:<name>`)
 * may only ask for tokens bound to pods on itself, the rule the Node authorizer and NodeRestriction
 * enforce: this is how an attached kubelet gives its pods credentials without handing out its own.
 *
 * Signed with HS256 under a key the server makes at start (or the one a sim's saved state keeps) (kube-apiserver signs with its
 * service-account key, RS256/ES256): clients treat tokens as opaque, only this server checks them.
 * The sim keeps its messages and codes the same as kube-apiserver 1.34's, checked against it.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { formatTime } from '../store-meta.js';
import { forbidden, invalid, notFound } from '../status-errors.js';
import { R, StatusError, type KObject, type Store } from '../types.js';
import { AUTHENTICATED, nodeNameOf, type UserInfo } from './identity.js';

/** The apiserver's own audience (and issuer): a token for another audience does not log in here. */
export const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

const SERVICE_ACCOUNTS = { plural: 'serviceaccounts', group: '', kind: 'ServiceAccount' };
const PODS = { plural: 'pods', group: '', kind: 'Pod' };

interface Claims {
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  iss: string;
  jti: string;
  sub: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod?: { name: string; uid: string };
    node?: { name: string; uid?: string };
  };
}

export interface TokenIssuer {
  /** Answer a TokenRequest (the request body) for `requester`; throws the apiserver's errors. */
  issue(input: {
    namespace: string;
    serviceAccount: string;
    body: Record<string, unknown>;
    requester: UserInfo;
  }): KObject;
  /** The service account a bearer token stands for, or undefined if it is not (or no longer) valid. */
  authenticate(token: string): UserInfo | undefined;
}

const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

interface BoundRef {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

/** @param key the signing key (kept by a sim with saved state). @default a random one */
export function createTokenIssuer(
  store: Store,
  now: () => Date,
  key: Buffer = randomBytes(32),
): TokenIssuer {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: 'kubemaint-sim' }));
  const sign = (payload: string): string =>
    createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url');

  /** NodeRestriction: a node's token must be bound to a pod bound to that node. */
  const admitNode = (node: string, sa: string, namespace: string, ref: BoundRef | undefined) => {
    const usesSa = store
      .list(R.pods, { namespace, fieldSelector: `spec.nodeName=${node}` })
      .some((p) => (p.spec?.['serviceAccountName'] ?? 'default') === sa);
    if (!usesSa) {
      throw forbidden(
        SERVICE_ACCOUNTS,
        sa,
        `User "system:node:${node}" cannot create resource "serviceaccounts/token" in API group "" in the namespace "${namespace}": no relationship found between node '${node}' and this object`,
      );
    }
    if (ref?.kind !== 'Pod') {
      throw forbidden(SERVICE_ACCOUNTS, sa, 'node requested token not bound to a pod');
    }
    const pod = store.get(R.pods, namespace, ref.name ?? '');
    if (pod && ref.uid && ref.uid !== pod.metadata.uid) {
      throw forbidden(SERVICE_ACCOUNTS, sa, uidMismatch(ref.uid));
    }
    if (pod && pod.spec?.['nodeName'] !== node) {
      throw forbidden(
        SERVICE_ACCOUNTS,
        sa,
        'node requested token bound to a pod scheduled on a different node',
      );
    }
  };

  return {
    issue({ namespace, serviceAccount, body, requester }) {
      const account = store.get(R.serviceaccounts, namespace, serviceAccount);
      if (!account) throw notFound(SERVICE_ACCOUNTS, serviceAccount);
      const spec = (body['spec'] ?? {}) as {
        audiences?: string[];
        expirationSeconds?: number;
        boundObjectRef?: BoundRef;
      };
      const ref = spec.boundObjectRef;
      const node = nodeNameOf(requester);
      if (node !== undefined) admitNode(node, serviceAccount, namespace, ref);
      const seconds = spec.expirationSeconds ?? 3600;
      if (!Number.isInteger(seconds) || seconds < 600) {
        throw invalid(SERVICE_ACCOUNTS, serviceAccount, [
          {
            reason: 'FieldValueInvalid',
            field: 'spec.expirationSeconds',
            message: `Invalid value: ${JSON.stringify(seconds)}: may not specify a duration less than 10 minutes`,
          },
        ]);
      }
      let pod: KObject | undefined;
      if (ref) {
        if (ref.kind !== 'Pod') {
          throw new StatusError(
            400,
            'BadRequest',
            `cannot bind token to object of type ${String(ref.kind)}: the sim binds tokens to Pods only`,
          );
        }
        pod = store.get(R.pods, namespace, ref.name ?? '');
        if (!pod) throw notFound(PODS, ref.name ?? '');
        if (ref.uid && ref.uid !== pod.metadata.uid) {
          throw new StatusError(
            409,
            'Conflict',
            `Operation cannot be fulfilled on Pod "${ref.name ?? ''}": ${uidMismatch(ref.uid)}`,
            { details: { name: ref.name, kind: 'Pod' } },
          );
        }
        if ((pod.spec?.['serviceAccountName'] ?? 'default') !== serviceAccount) {
          throw new StatusError(
            400,
            'BadRequest',
            `cannot bind token for serviceaccount "${serviceAccount}" to pod running with different serviceaccount name.`,
          );
        }
      }
      const iat = Math.floor(now().getTime() / 1000);
      const audiences = spec.audiences?.length ? spec.audiences : [API_AUDIENCE];
      const boundNode = pod?.spec?.['nodeName'] as string | undefined;
      const nodeUid = boundNode
        ? store.get(R.nodes, undefined, boundNode)?.metadata.uid
        : undefined;
      const claims: Claims = {
        aud: audiences,
        exp: iat + seconds,
        iat,
        nbf: iat,
        iss: API_AUDIENCE,
        jti: randomUUID(),
        sub: `system:serviceaccount:${namespace}:${serviceAccount}`,
        'kubernetes.io': {
          namespace,
          serviceaccount: { name: serviceAccount, uid: account.metadata.uid ?? '' },
          ...(pod ? { pod: { name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' } } : {}),
          ...(boundNode ? { node: { name: boundNode, ...(nodeUid ? { uid: nodeUid } : {}) } } : {}),
        },
      };
      const payload = b64url(JSON.stringify(claims));
      return {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: {
          name: serviceAccount,
          namespace,
          uid: account.metadata.uid ?? '',
          creationTimestamp: formatTime(now()),
        },
        spec: {
          audiences,
          expirationSeconds: seconds,
          ...(ref ? { boundObjectRef: { apiVersion: 'v1', ...ref } } : {}),
        },
        status: {
          token: `${header}.${payload}.${sign(payload)}`,
          expirationTimestamp: formatTime(new Date(claims.exp * 1000)),
        },
      };
    },

    authenticate(token) {
      const [head, payload, signature] = token.split('.');
      if (head !== header || !payload || !signature) return undefined;
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims;
      const k8s = claims['kubernetes.io'];
      if (!claims.aud.includes(API_AUDIENCE)) return undefined;
      if (claims.exp * 1000 <= now().getTime()) return undefined;
      const account = store.get(R.serviceaccounts, k8s.namespace, k8s.serviceaccount.name);
      if (account?.metadata.uid !== k8s.serviceaccount.uid) return undefined;
      if (k8s.pod) {
        const pod = store.get(R.pods, k8s.namespace, k8s.pod.name);
        if (pod?.metadata.uid !== k8s.pod.uid) return undefined;
      }
      const extra: Record<string, string[]> = {
        'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`],
        ...(k8s.pod
          ? {
              'authentication.kubernetes.io/pod-name': [k8s.pod.name],
              'authentication.kubernetes.io/pod-uid': [k8s.pod.uid],
            }
          : {}),
        ...(k8s.node ? { 'authentication.kubernetes.io/node-name': [k8s.node.name] } : {}),
        ...(k8s.node?.uid ? { 'authentication.kubernetes.io/node-uid': [k8s.node.uid] } : {}),
      };
      return {
        username: claims.sub,
        uid: k8s.serviceaccount.uid,
        groups: [
          'system:serviceaccounts',
          `system:serviceaccounts:${k8s.namespace}`,
          AUTHENTICATED,
        ],
        extra,
      };
    },
  };
}

const uidMismatch = (uid: string): string =>
  `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`;
