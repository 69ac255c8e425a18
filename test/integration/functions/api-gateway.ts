/** What API Gateway's HTTP API (payload 2.0) hands the Slack function for a POST to /slack/events. */
import type { AwsEvent } from '../../../src/compose/lambda/slack-handler.js';

export function apiGatewayEvent(body: string, headers: Record<string, string>): AwsEvent {
  return {
    version: '2.0',
    routeKey: 'POST /slack/events',
    rawPath: '/slack/events',
    rawQueryString: '',
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    requestContext: {
      http: { method: 'POST', path: '/slack/events', protocol: 'HTTP/1.1', sourceIp: '3.4.5.6' },
      routeKey: 'POST /slack/events',
      stage: '$default',
    },
    // HTTP APIs base64-encode form posts.
    body: Buffer.from(body).toString('base64'),
    isBase64Encoded: true,
  };
}
