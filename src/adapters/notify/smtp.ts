/**
 * Email through nodemailer: `smtp://user:password@host:587/?from=…&to=a@x,b@x&subject=…`. shoutrrr's
 * options: `encryption` Auto (implicit TLS on 465, else STARTTLS unless `usestarttls=no`), None,
 * ExplicitTLS, ImplicitTLS; `auth` Unknown (let the server offer), None, Plain, CRAMMD5, OAuth2.
 */
import { optional } from './shape.js';
import {
  NotifySendError,
  urlError,
  type NotifyMessage,
  type NotifyService,
  type SendIo,
} from './types.js';
import { boolProp, decodePart, listProp, passwordOf, prop, userOf } from './url.js';
import { DEFAULT_TIMEOUT_MS } from './http.js';

const ENCRYPTIONS = ['Auto', 'None', 'ExplicitTLS', 'ImplicitTLS'] as const;
const AUTHS = ['Unknown', 'None', 'Plain', 'CRAMMD5', 'OAuth2'] as const;

export interface SmtpConfig {
  host: string;
  port: number;
  username?: string;
  password?: string;
  from: string;
  fromName?: string;
  to: string[];
  subject?: string;
  auth: (typeof AUTHS)[number];
  encryption: (typeof ENCRYPTIONS)[number];
  useStartTls: boolean;
  useHtml: boolean;
  clientHost: string;
}

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/;

export const smtpService: NotifyService = {
  schemes: ['smtp'],
  parse(url, masked, props) {
    if (url.hostname === '') throw urlError(masked, 'the mail server host is missing');
    const from = prop(props, 'from', 'fromaddress') ?? '';
    const to = listProp(props, 'to', 'toaddresses');
    if (!ADDRESS.test(from))
      throw urlError(
        masked,
        'from=<address> is required',
        'smtp://user:pass@host:587/?from=bot@example.com&to=ops@example.com',
      );
    if (to.length === 0) throw urlError(masked, 'to=<address>[,<address>…] is required');
    for (const address of to) {
      if (!ADDRESS.test(address))
        throw urlError(masked, `to: "${address}" is not an email address`);
    }
    const username = userOf(url, masked);
    const password = passwordOf(url, masked);
    const config: SmtpConfig = {
      host: decodePart(url.hostname, masked, 'host'),
      port: url.port === '' ? 25 : Number(url.port),
      from,
      to,
      auth: pick(AUTHS, prop(props, 'auth') ?? 'Unknown', 'auth', masked),
      encryption: pick(ENCRYPTIONS, prop(props, 'encryption') ?? 'Auto', 'encryption', masked),
      useStartTls: boolProp(props, 'usestarttls', true, masked),
      useHtml: boolProp(props, 'usehtml', false, masked),
      clientHost: prop(props, 'clienthost') ?? 'localhost',
      ...optional({
        username: username || undefined,
        password: password || undefined,
        fromName: prop(props, 'fromname'),
        subject: prop(props, 'subject', 'title'),
      }),
    };
    return {
      service: 'smtp',
      config,
      markup: config.useHtml ? 'html' : 'plain',
      describe: () => masked,
      send: (message, io) => sendMail(config, message, io, masked),
    };
  },
};

function pick<T extends string>(
  allowed: readonly T[],
  value: string,
  key: string,
  masked: string,
): T {
  const found = allowed.find((a) => a.toLowerCase() === value.toLowerCase());
  if (found === undefined)
    throw urlError(masked, `${key}=${value} is not one of ${allowed.join(', ')}`);
  return found;
}

/** nodemailer transport options for a config (exported for the unit tests of the TLS mapping). */
export function transportOptions(config: SmtpConfig, timeoutMs: number) {
  const implicit =
    config.encryption === 'ImplicitTLS' || (config.encryption === 'Auto' && config.port === 465);
  const auth =
    config.auth === 'None' || config.username === undefined
      ? undefined
      : config.auth === 'OAuth2'
        ? { type: 'OAuth2' as const, user: config.username, accessToken: config.password ?? '' }
        : { user: config.username, pass: config.password ?? '' };
  return {
    host: config.host,
    port: config.port,
    secure: implicit,
    requireTLS: config.encryption === 'ExplicitTLS',
    ignoreTLS:
      config.encryption === 'None' ||
      (config.encryption === 'Auto' && !implicit && !config.useStartTls),
    name: config.clientHost,
    ...(auth === undefined ? {} : { auth }),
    ...(config.auth === 'Plain'
      ? { authMethod: 'PLAIN' }
      : config.auth === 'CRAMMD5'
        ? { authMethod: 'CRAM-MD5' }
        : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  };
}

async function sendMail(
  config: SmtpConfig,
  message: NotifyMessage,
  io: SendIo | undefined,
  masked: string,
): Promise<void> {
  // nodemailer loads on the first mail: parsing URLs (the config check) and the Lambdas stay light.
  const { createTransport } = await import('nodemailer');
  const transport = createTransport(transportOptions(config, io?.timeoutMs ?? DEFAULT_TIMEOUT_MS));
  try {
    await transport.sendMail({
      from:
        config.fromName === undefined
          ? config.from
          : { name: config.fromName, address: config.from },
      to: config.to,
      subject: config.subject ?? message.title ?? 'kubemaint',
      ...(config.useHtml ? { html: message.text } : { text: message.text }),
    });
  } catch (error) {
    const smtp = error as { responseCode?: number; code?: string; message?: string };
    // 4xx replies are the server's "try later"; 5xx and a refused login will not change by retrying.
    const retryable =
      smtp.responseCode === undefined ? smtp.code !== 'EAUTH' : smtp.responseCode < 500;
    const status =
      smtp.responseCode === undefined ? (smtp.code ?? 'error') : `SMTP ${smtp.responseCode}`;
    throw new NotifySendError(`${masked}: ${status}: ${firstLine(smtp.message ?? String(error))}`, {
      retryable,
      ...(smtp.responseCode === undefined ? {} : { status: smtp.responseCode }),
      cause: error,
    });
  } finally {
    transport.close();
  }
}

const firstLine = (text: string): string => text.split('\n')[0]!.slice(0, 200);
