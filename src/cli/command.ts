import type { Commands } from '../commands.js';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Services } from '../services.js';
import type { Args } from './args.js';

/** What a CLI command runs with: its options, the services, and what it may need besides. */
export type CliContext = {
  args: Args;
  services: Services;
  /** The workflow-starting commands, on a Temporal client made only when a command asks for them. */
  commands(): Commands;
  config: Config;
  orm: Orm;
  /** Where the console is reached, for the links the CLI prints. */
  consoleOrigin(): string;
};

/** One CLI command: its lines of the usage (name and options, then what it does) and what it does. */
export type CliCommand = { usage: string; run(ctx: CliContext): Promise<void> };
