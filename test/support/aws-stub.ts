/**
 * A local stand-in for the two AWS APIs the functions call: SSM GetParameter (answers from a map of
 * parameter name → value, ParameterNotFound otherwise) and Lambda Invoke (202, recording the event).
 * Every request is recorded with its headers, so a test can check the signing scope and target.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AwsStubRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface AwsStub {
  /** `http://127.0.0.1:<port>`: use as AWS_ENDPOINT_URL_SSM / AWS_ENDPOINT_URL_LAMBDA. */
  url: string;
  requests: AwsStubRequest[];
  /** Events queued through Lambda Invoke, by function name. */
  invocations: { functionName: string; event: unknown }[];
  close(): Promise<void>;
}

export async function startAwsStub(parameters: Record<string, string>): Promise<AwsStub> {
  const requests: AwsStubRequest[] = [];
  const invocations: AwsStub['invocations'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '';
      requests.push({ path, headers: req.headers, body });
      const invoke = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(path);
      if (invoke) {
        invocations.push({ functionName: invoke[1]!, event: JSON.parse(body) as unknown });
        res.writeHead(202, { 'x-amzn-RequestId': `req-${invocations.length}` }).end();
        return;
      }
      const name = (JSON.parse(body) as { Name?: string }).Name ?? '';
      const value = parameters[name];
      if (req.headers['x-amz-target'] !== 'AmazonSSM.GetParameter' || value === undefined) {
        res
          .writeHead(400, { 'content-type': 'application/x-amz-json-1.1' })
          .end(JSON.stringify({ __type: 'ParameterNotFound', message: `no ${name}` }));
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/x-amz-json-1.1' })
        .end(JSON.stringify({ Parameter: { Name: name, Type: 'SecureString', Value: value } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    invocations,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
