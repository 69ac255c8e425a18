/**
 * Authentication and authorization in front of every API request, in kube-apiserver's order:
 * authenticate (the admin bearer token, a client certificate signed by the sim's CA, or a
 * service-account token; anything else 401), apply impersonation headers (each one authorised),
 * then authorize what the request does (Node + RBAC, authz/). The unauthenticated health and version
 * paths skip all of it, as `system:public-info-viewer` lets anyone read them upstream.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import {
  createAuthorizer,
  forbiddenError,
  resourceAttributes,
  type Authorizer,
  type AuthzAttributes,
} from '../authz/index.js';
import { certificateUser } from '../client-certificates.js';
import { parseFieldSelector, type FieldRequirement } from '../selectors.js';
import { StatusError, type Store } from '../types.js';
import { impersonate, SIM_ADMIN, type UserInfo } from './identity.js';
import type { TokenIssuer } from './service-account-tokens.js';

export interface AccessControl {
  authorizer: Authorizer;
  /** Who the request acts as (after impersonation), or a 401/403. */
  identify(req: IncomingMessage): UserInfo;
  /** Who a bearer token is (TokenReview), or undefined: the admin token or a ServiceAccount token. */
  authenticateToken(token: string): UserInfo | undefined;
  /** Throws the 403 unless the user may `verb` the resource (or the path, for non-resource requests). */
  authorize(attributes: AuthzAttributes): void;
}

export function createAccessControl(
  store: Store,
  adminToken: string,
  tokens: TokenIssuer,
): AccessControl {
  const adminHeader = Buffer.from(`Bearer ${adminToken}`);
  const authorizer = createAuthorizer(store);

  const authenticate = (req: IncomingMessage): UserInfo | undefined => {
    const fromCertificate = certificateUser(req.socket as TLSSocket);
    if (fromCertificate) return fromCertificate;
    const header = req.headers.authorization ?? '';
    const given = Buffer.from(header);
    if (given.length === adminHeader.length && timingSafeEqual(given, adminHeader))
      return SIM_ADMIN;
    return header.startsWith('Bearer ') ? tokens.authenticate(header.slice(7)) : undefined;
  };

  return {
    authorizer,
    authenticateToken(token) {
      const given = Buffer.from(`Bearer ${token}`);
      if (given.length === adminHeader.length && timingSafeEqual(given, adminHeader))
        return SIM_ADMIN;
      return tokens.authenticate(token);
    },
    identify(req) {
      const caller = authenticate(req);
      if (!caller) throw new StatusError(401, 'Unauthorized', 'Unauthorized');
      return impersonate(caller, req.headers, authorizer);
    },
    authorize(attributes) {
      const decision = authorizer.authorize(attributes);
      if (!decision.allowed) throw forbiddenError(attributes, decision.reason);
    },
  };
}

/** Attributes of a non-resource request (discovery, OpenAPI, `/_sim/`): the method is the verb. */
export const pathAttributes = (user: UserInfo, method: string, path: string): AuthzAttributes => ({
  ...resourceAttributes(user, method.toLowerCase(), { apiGroup: '', resource: '' }),
  resourceRequest: false,
  path,
});

/**
 * The object a list or watch names by `fieldSelector=metadata.name=X` (kube-apiserver's
 * RequestInfoFactory): authorized as a request for X, so a Role with `resourceNames: [X]` allows it,
 * as upstream. Only an exact match counts (`=` or `==`, alone or ANDed with other fields); a
 * selector that does not parse, or a name that could not be a path segment, names nothing.
 */
export function selectedName(fieldSelector: string | null): string | undefined {
  if (!fieldSelector) return undefined;
  let requirements: FieldRequirement[];
  try {
    requirements = parseFieldSelector(fieldSelector, () => true);
  } catch {
    return undefined;
  }
  const name = requirements.find((r) => r.field === 'metadata.name' && !r.negate)?.value;
  // path.IsValidPathSegmentName
  if (name === undefined || name === '.' || name === '..' || /[/%]/.test(name)) return undefined;
  return name;
}
