/**
 * Is this failure the apiserver refusing *us* rather than being away? A TLS handshake that fails
 * (the server's certificate is not signed by the CA our kubeconfig trusts, or the server rejects our
 * client certificate) or a 401 will fail the same way on every retry until someone changes the
 * kubeconfig: `serve`'s readiness says so at once instead of waiting out a timeout (issue 17: a sim
 * re-created with a new CA left serve failing every call while `/readyz` said 200). A refused
 * connection, a reset or a 5xx is not a refusal: the apiserver may be restarting.
 */

/** Node's certificate verification codes (X509_V_ERR_* as OpenSSL names them, ERR_TLS_* as Node's). */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The causes of an error, outermost first (bounded: a cycle must not hang readiness). */
function* chain(error: unknown): Generator<unknown> {
  let e: unknown = error;
  for (let depth = 0; depth < 8 && e !== undefined && e !== null; depth++) {
    yield e;
    e = (e as { cause?: unknown }).cause;
  }
}

const field = (e: unknown, name: string): unknown =>
  typeof e === 'object' && e !== null ? (e as Record<string, unknown>)[name] : undefined;

/** Why the apiserver refuses this client, in one sentence; undefined when it is not a refusal. */
export function apiRefusal(error: unknown): string | undefined {
  for (const e of chain(error)) {
    const code = field(e, 'code');
    const message = e instanceof Error ? e.message : String(e);
    if (typeof code === 'string' && CERTIFICATE_CODES.has(code)) {
      return (
        `the TLS handshake fails: the apiserver's certificate is not trusted (${code}: ${message}); ` +
        'was the cluster re-created with a new CA? restart serve with its current kubeconfig'
      );
    }
    // The server ended the handshake with an alert: it does not accept our client certificate.
    if (typeof code === 'string' && code.startsWith('ERR_SSL_') && /ALERT/.test(code)) {
      return (
        `the TLS handshake fails: the apiserver refuses serve's client certificate (${code}); ` +
        'restart serve with a kubeconfig whose certificate the cluster trusts'
      );
    }
    // KubeError.status, client-node's watch error statusCode, ApiException.code.
    if ([field(e, 'status'), field(e, 'statusCode'), field(e, 'code')].includes(401)) {
      return (
        "the apiserver does not accept serve's credentials (401 Unauthorized); " +
        'restart serve with a current kubeconfig or token'
      );
    }
  }
  return undefined;
}
