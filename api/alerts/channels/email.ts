// The e-mail channel: one message per delivery, in Greek and English, as plain text and HTML, through
// the SMTP server of SMTP_URL (nodemailer), to the profile's notify_email.
import nodemailer, { type Transporter } from 'nodemailer';
import type { SourceName } from '../../../index-mappings/sources.js';
import { SOURCES } from '../../../lib/sources.js';
import { hasControl } from '../../middleware/validate.js';
import { DeliveryError, TargetError, type AlertChannel } from './channel.js';

export const FROM = 'PDI alerts <alerts@pdi.invalid>';

export interface MailDocument {
  source_id: string;
  source: string;
  title: string;
  published_at: string;
  source_url: string;
  amount: { value: number; currency: string } | null;
}

export interface MailContext {
  deliveryId: string;
  profileName: string;
  /** The monitor event's summary when the delivery carries one. */
  event: string | null;
}

export interface Mail {
  subject: string;
  text: string;
  html: string;
}

function amountOf(amount: MailDocument['amount']): string {
  if (amount === null) return '—';
  try {
    return new Intl.NumberFormat('el-GR', { style: 'currency', currency: amount.currency }).format(amount.value);
  } catch {
    return `${amount.value} ${amount.currency}`;
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** One line: upstream titles may hold newlines, which in a subject would start new headers. */
const oneLine = (s: string, max: number) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return [...flat].length > max ? `${[...flat].slice(0, max - 1).join('')}…` : flat;
};

export function composeMail(doc: MailDocument, ctx: MailContext): Mail {
  const source = SOURCES[doc.source as SourceName]?.label ?? doc.source;
  const intro: [string, string] =
    ctx.event === null
      ? [`Νέο έγγραφο ταιριάζει με το προφίλ ειδοποιήσεων «${ctx.profileName}».`, `A new document matches your alert profile "${ctx.profileName}".`]
      : [`Νέο συμβάν για οντότητα που παρακολουθείτε: ${ctx.event}`, `New activity of an entity you monitor: ${ctx.event}`];
  const rows: [string, string][] = [
    ['Τίτλος / Title', doc.title],
    ['Πηγή / Source', source],
    ['Ποσό / Amount', amountOf(doc.amount)],
    ['Δημοσίευση / Published', doc.published_at.slice(0, 10)],
    ['Σύνδεσμος / Link', doc.source_url],
    ['Κωδικός εγγράφου / Document id', doc.source_id],
  ];
  const footer = `Ταυτότητα παράδοσης / Delivery id: ${ctx.deliveryId}`;
  const text = [...intro, '', ...rows.map(([k, v]) => `${k}: ${v}`), '', footer, ''].join('\n');
  const cells = rows
    .map(([k, v]) => {
      const value = k.startsWith('Σύνδεσμος') && /^https?:\/\//.test(v) ? `<a href="${escapeHtml(v)}">${escapeHtml(v)}</a>` : escapeHtml(v);
      return `<tr><th align="left">${escapeHtml(k)}</th><td>${value}</td></tr>`;
    })
    .join('');
  const html = `<!doctype html><html><body><p>${escapeHtml(intro[0])}<br>${escapeHtml(intro[1])}</p><table>${cells}</table><p><small>${escapeHtml(footer)}</small></p></body></html>`;
  const what = ctx.event === null ? 'Νέο έγγραφο / New document' : 'Συμβάν παρακολούθησης / Monitor event';
  return { subject: `${what}: ${oneLine(doc.title, 150)}`, text, html };
}

export class Mailer {
  private readonly transport: Transporter | null;

  constructor(smtpUrl: string | null) {
    this.transport = smtpUrl === null ? null : nodemailer.createTransport(smtpUrl);
  }

  async send(to: string, mail: Mail): Promise<void> {
    if (this.transport === null) throw new DeliveryError('email is not configured on this server (SMTP_URL is unset)', false);
    try {
      await this.transport.sendMail({ from: FROM, to, subject: mail.subject, text: mail.text, html: mail.html });
    } catch (err) {
      const e = err as { responseCode?: number; code?: string; message: string };
      // SMTP 5xx is a permanent refusal (unknown mailbox); 4xx and connection failures pass.
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
      throw new DeliveryError(`SMTP: ${e.code ?? ''}${e.code ? ' ' : ''}${e.message}`.trim(), !permanent);
    }
  }

  close(): void {
    this.transport?.close();
  }
}

const MAX_EMAIL = 254;
const EMAIL = /^[^\s@",;<>()[\]\\]+@[^\s@",;<>()[\]\\]+\.[^\s@",;<>()[\]\\]+$/;

export const emailChannel = {
  name: 'email',
  member: 'notify_email',
  target: { maxLength: MAX_EMAIL, value: { format: 'email' } },
  concurrency: 4,
  // Compared case-insensitively: mail domains are, and no mailbox is told apart by case.
  parseTarget(value: string): string {
    if (value.length > MAX_EMAIL || !EMAIL.test(value) || hasControl(value)) throw new TargetError('notify_email must be an email address');
    return value.toLowerCase();
  },
  sender({ config }) {
    const mailer = new Mailer(config.smtpUrl);
    return {
      async send(delivery) {
        const mail = composeMail(delivery.document, {
          deliveryId: delivery.id,
          profileName: delivery.profile.name,
          event: delivery.event ? String(delivery.event.summary) : null,
        });
        await mailer.send(delivery.target, mail);
      },
      close: () => mailer.close(),
    };
  },
} as const satisfies AlertChannel;
