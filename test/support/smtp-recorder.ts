/**
 * A tiny ESMTP server on node:net for mail tests: enough of RFC 5321 for nodemailer (EHLO/HELO,
 * AUTH PLAIN and LOGIN, MAIL FROM, RCPT TO, DATA, RSET, NOOP, QUIT) without TLS, recording each
 * message with its envelope and the credentials it logged in with.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface RecordedMail {
  clientName: string;
  auth?: { method: 'PLAIN' | 'LOGIN'; user: string; pass: string };
  from: string;
  to: string[];
  /** The DATA section, dot-unstuffed, CRLF line ends kept. */
  data: string;
}

export interface SmtpRecorder {
  port: number;
  mails: RecordedMail[];
  /** The AUTH mechanisms EHLO offers. @default 'PLAIN LOGIN' */
  authMethods: string;
  /** When set, every RCPT TO is answered with this line, e.g. `450 4.2.1 mailbox busy`. */
  rejectRecipients?: string;
  close(): Promise<void>;
}

const b64 = (text: string): string => Buffer.from(text, 'base64').toString('utf8');

export async function startSmtpRecorder(): Promise<SmtpRecorder> {
  const sockets = new Set<Socket>();
  const recorder: SmtpRecorder = {
    port: 0,
    mails: [],
    authMethods: 'PLAIN LOGIN',
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serve(socket, recorder);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  recorder.port = (server.address() as AddressInfo).port;
  return recorder;
}

function serve(socket: Socket, recorder: SmtpRecorder): void {
  let buffer = '';
  let mode: 'command' | 'data' | 'login-user' | 'login-pass' | 'plain' = 'command';
  let mail: Partial<RecordedMail> & { to: string[] } = { to: [] };
  let clientName = '';
  let auth: RecordedMail['auth'];
  let loginUser = '';
  const send = (line: string): void => void socket.write(`${line}\r\n`);

  const onLine = (line: string): void => {
    if (mode === 'login-user') {
      loginUser = b64(line);
      mode = 'login-pass';
      return send('334 UGFzc3dvcmQ6');
    }
    if (mode === 'login-pass') {
      auth = { method: 'LOGIN', user: loginUser, pass: b64(line) };
      mode = 'command';
      return send('235 2.7.0 Authentication successful');
    }
    if (mode === 'plain') {
      mode = 'command';
      return plain(line);
    }
    const [verb = '', ...rest] = line.split(' ');
    const arg = rest.join(' ');
    switch (verb.toUpperCase()) {
      case 'EHLO':
        clientName = arg;
        return send(
          `250-recorder\r\n250-AUTH ${recorder.authMethods}\r\n250-8BITMIME\r\n250 SMTPUTF8`,
        );
      case 'HELO':
        clientName = arg;
        return send('250 recorder');
      case 'AUTH':
        return startAuth(arg);
      case 'MAIL':
        mail = { to: [], from: /<([^>]*)>/.exec(arg)?.[1] ?? '' };
        return send('250 2.1.0 Ok');
      case 'RCPT':
        if (recorder.rejectRecipients !== undefined) return send(recorder.rejectRecipients);
        mail.to.push(/<([^>]*)>/.exec(arg)?.[1] ?? '');
        return send('250 2.1.5 Ok');
      case 'DATA':
        mode = 'data';
        return send('354 End data with <CR><LF>.<CR><LF>');
      case 'RSET':
        mail = { to: [] };
        return send('250 2.0.0 Ok');
      case 'NOOP':
        return send('250 2.0.0 Ok');
      case 'QUIT':
        send('221 2.0.0 Bye');
        socket.end();
        return;
      default:
        return send('502 5.5.2 Command not recognized');
    }
  };

  const startAuth = (arg: string): void => {
    const [method = '', initial] = arg.split(' ');
    if (method.toUpperCase() === 'PLAIN') {
      if (initial === undefined) {
        mode = 'plain';
        return void send('334 ');
      }
      return plain(initial);
    }
    if (method.toUpperCase() === 'LOGIN') {
      if (initial !== undefined) {
        loginUser = b64(initial);
        mode = 'login-pass';
        return void send('334 UGFzc3dvcmQ6');
      }
      mode = 'login-user';
      return void send('334 VXNlcm5hbWU6');
    }
    send('504 5.5.4 Unrecognized authentication type');
  };

  const plain = (encoded: string): void => {
    const [, user = '', pass = ''] = b64(encoded).split('\0');
    auth = { method: 'PLAIN', user, pass };
    send('235 2.7.0 Authentication successful');
  };

  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (;;) {
      if (mode === 'data') {
        const end = buffer.indexOf('\r\n.\r\n');
        if (end === -1) return;
        const data = buffer.slice(0, end + 2).replace(/^\.\./gm, '.');
        buffer = buffer.slice(end + 5);
        mode = 'command';
        recorder.mails.push({
          clientName,
          ...(auth === undefined ? {} : { auth }),
          from: mail.from ?? '',
          to: mail.to,
          data,
        });
        send('250 2.0.0 Ok: queued');
        continue;
      }
      const end = buffer.indexOf('\r\n');
      if (end === -1) return;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      onLine(line);
    }
  });
  send('220 recorder ESMTP');
}
