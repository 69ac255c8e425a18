/**
 * GET a kubelet's `/configz` with a bearer token, as the reporter agent asks it (ADR 0049): verified
 * with `ca` when given, else not (a kubelet's serving certificate is self-signed by default).
 */
import { request } from 'node:https';

export function getConfigz(
  url: string,
  token: string,
  ca?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/configz`,
      {
        ...(ca ? { ca } : { rejectUnauthorized: false }),
        headers: { Authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
