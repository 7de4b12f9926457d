import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message as the SMTP server took it: envelope, headers and the decoded text body. */
export type ReceivedMail = { from: string; to: string[]; headers: Record<string, string>; text: string; user?: string };

/** The text of a single-part message, its transfer encoding undone (nodemailer folds long lines as quoted-printable). */
function decode(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? Buffer.from(
          body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('utf8')
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { headers, text: text.replace(/\r\n/g, '\n') };
}

/**
 * A real SMTP server on loopback (the `smtp-server` package): it speaks the protocol nodemailer
 * speaks to any mail server, requires AUTH with `user`/`pass`, and keeps what it is given.
 * Recipients matching `refuse` are refused at RCPT TO, as a server refuses an address it will not take.
 */
export async function startSmtpServer(opts: { user: string; pass: string; refuse?: RegExp }) {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    // Plain SMTP on loopback: no certificate to trust in the test; AUTH over it is allowed here only.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === opts.user && auth.password === opts.pass) return done(null, { user: auth.username });
      return done(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, done) {
      if (opts.refuse?.test(address.address)) {
        const err = new Error(`5.1.1 <${address.address}>: mailbox unavailable`) as Error & { responseCode: number };
        err.responseCode = 550;
        return done(err);
      }
      return done();
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          ...decode(Buffer.concat(chunks).toString('utf8')),
        });
        done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.pass)}@127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The console link in a mail's text. */
export function linkIn(mail: ReceivedMail): string {
  const m = mail.text.match(/https?:\/\/\S+\/console\/set-password#token=[A-Za-z0-9_-]+/);
  if (!m) throw new Error(`no console link in: ${mail.text}`);
  return m[0];
}
