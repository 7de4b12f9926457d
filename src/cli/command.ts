import type { Commands } from '../commands.js';
import type { Writable } from 'node:stream';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Services } from '../services.js';
import type { Args } from './args.js';

/** Where a run of the CLI writes: the process's own streams, or a test's (run.ts). */
export type CliOutput = { stdout: Writable; stderr: Writable };

/** What a CLI command runs with: its options, the services, and what it may need besides. */
export type CliContext = {
  args: Args;
  /** The command's output (an export's lines; `args.print` writes here too). */
  stdout: Writable;
  services: Services;
  /** The workflow-starting commands, on a Temporal client made only when a command asks for them. */
  commands(): Commands;
  config: Config;
  orm: Orm;
  /** Where the console is reached, for the links the CLI prints. */
  consoleOrigin(): string;
};

/**
 * One CLI command: its lines of the usage (name and options, then what it does) and what it does; an
 * exit code other than 0 it resolves to is the run's (a refusal is an AppError or UsageError instead).
 */
export type CliCommand = { usage: string; run(ctx: CliContext): Promise<number | void> };
