import { createTransport } from 'nodemailer';

/** A plain-text message to one person. */
export type MailMessage = { to: string; subject: string; text: string };

export type Mailer = {
  send(message: MailMessage): Promise<void>;
  close(): void;
};

/**
 * Mail through the SMTP server in `url` (SMTP_URL: `smtp://user:pass@host:587`, STARTTLS when the
 * server offers it; `smtps://…:465` for TLS from the start). The timeouts are short because a person
 * is waiting on the request that sends it: a server that does not answer within seconds is reported
 * as not sent (and the link handed back instead) rather than holding the request open for minutes,
 * nodemailer's defaults.
 */
export function createMailer(url: string, from: string): Mailer {
  const transport = createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
  });
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close: () => transport.close(),
  };
}
