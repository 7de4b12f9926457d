// The CLI's options and their readers: each command reads what it needs, refusing bad input as a
// UsageError (the usage and exit code 2, main.ts).
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { hasControlCharacter, terminalSafe, terminalSafeJson } from '../lib/text.js';

// Every option is a string (read and checked by the command) or a flag.
const text = { type: 'string' } as const;
const flag = { type: 'boolean', default: false } as const;
export const options = {
  name: text,
  plan: text,
  credits: text,
  'monthly-credits': text,
  org: text,
  amount: text,
  pool: text,
  role: text,
  key: text,
  email: text,
  invitation: text,
  analyses: text,
  reads: text,
  writes: text,
  'max-batch': text,
  id: text,
  status: text,
  since: text,
  'dry-run': flag,
  out: text,
  json: flag,
  help: { ...flag, short: 'h' },
} as const;

type OptionName = keyof typeof options;
type Parsed = ReturnType<typeof parseArgs<{ allowPositionals: true; options: typeof options }>>;

export class UsageError extends Error {}

/**
 * Bad usage (an unknown option, an option without its value) is a UsageError (the usage and exit code 2,
 * run.ts), never a stack trace.
 */
export function parseCommandLine(argv: string[]): Parsed | UsageError {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options });
  } catch (err) {
    if (!(err instanceof TypeError && String((err as { code?: string }).code).startsWith('ERR_PARSE_ARGS'))) throw err;
    return new UsageError(err.message.split('\n')[0]);
  }
}

/** The parsed options, read as each command needs them. */
export class Args {
  constructor(
    readonly values: Parsed['values'],
    private readonly stdout: Writable = process.stdout,
  ) {}

  need(name: OptionName): string {
    const v = this.values[name];
    if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
    return v;
  }

  /**
   * A name or e-mail address to store: one line, as the API's names must be (issue 36). Listings print
   * them one row each, where a line break forged a row and an escape sequence reached the terminal.
   */
  oneLine(name: OptionName, value: string): string {
    if (hasControlCharacter(value))
      throw new UsageError(`--${name} must not contain control characters (line breaks, tabs, escape sequences)`);
    return value;
  }

  label(name: OptionName): string {
    return this.oneLine(name, this.need(name));
  }

  int(name: OptionName): number {
    const n = Number(this.need(name));
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
    return n;
  }

  /** An optional whole number of at least 1 (a limit of 0 would lock the organisation out: revoke keys for that). */
  positive(name: OptionName): number | undefined {
    if (this.values[name] === undefined) return undefined;
    const v = this.need(name);
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1)
      throw new UsageError(`--${name} must be a whole number of at least 1`);
    return n;
  }

  /** An ISO 8601 time with a date and a time of day (and a zone, else UTC). */
  isoTime(name: OptionName): Date {
    const v = this.need(name);
    const d = new Date(v);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v) || Number.isNaN(d.getTime()))
      throw new UsageError(`--${name} must be an ISO 8601 time, e.g. 2026-11-01T00:00:00Z`);
    return d;
  }

  oneOf<T extends string>(name: OptionName, allowed: readonly T[], fallback?: T): T {
    const v = (this.values[name] as string | undefined) ?? fallback;
    if (!v || !allowed.includes(v as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
    return v as T;
  }

  /**
   * The command's result on stdout: JSON, or the human form's lines. Stored text reaches an operator's
   * terminal here (names, e-mail addresses, reasons), including rows stored before control characters
   * were refused: each line is escaped whole (terminalSafe), so a line break in a name stays on its
   * row and no escape sequence reaches the terminal. Our own lines hold no control character.
   */
  print(result: unknown, human: string | string[]): void {
    const lines = typeof human === 'string' ? [human] : human;
    this.stdout.write(`${this.values.json ? terminalSafeJson(result, 2) : lines.map(terminalSafe).join('\n')}\n`);
  }
}
